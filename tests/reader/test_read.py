"""The reader's decisions: anchoring, the yes/no check, "not stated", and falling back to the extractive answer."""

import pytest

from evidence.answers.layer import ShortAnswer
from evidence.answers.ranker_rows import Sentence
from evidence.reader import reading
from evidence.reader.backends import Completion, ReaderUnavailable, Step
from evidence.reader.prompt import read_reply

SENTENCES = [
    Sentence("The MapReduce library relies on a distributed lock service called Chubby.", 0, 5.0, 0.8),
    Sentence("Unlike earlier systems, the scheduler does not utilize a central lock.", 1, 4.0, 0.6),
    Sentence("We ran the jobs on 1800 machines.", 2, 3.0, 0.4),
]
EXTRACTIVE = ShortAnswer("distributed lock service", 0, 35, 59, 0.3, False, "name", [], {"absent": 0.0})


def completion(text: str, logprob: float = -0.05) -> Completion:
    pieces = text.split(" ")
    steps = [Step((" " if i else "") + p, logprob, ((p, logprob), ("not", -4.0))) for i, p in enumerate(pieces)]
    return Completion(text, steps, prompt_tokens=200, evaluated_tokens=120)


def judged(question: str, text: str, logprob: float = -0.05, threshold: float | None = None):
    return reading.judge_reply(question, SENTENCES, read_reply(text, 3), completion(text, logprob), EXTRACTIVE, True,
                               threshold, 1.0)  # fmt: skip


def test_an_anchored_answer_is_cut_from_its_sentence_and_highlighted():
    result = judged("Which lock service does MapReduce rely on?", "Chubby")
    short = result.short
    assert result.found and short.shown and short.text == "Chubby"
    assert SENTENCES[short.sentence].text[short.start : short.end] == "Chubby"
    assert short.alternatives[0]["text"] == "distributed lock service"  # the extractive pick, kept as an alternative
    assert short.reader["anchored"] is True


def test_an_answer_not_in_the_evidence_is_withheld_whatever_its_probability():
    short = judged("Which lock service does MapReduce rely on?", "ZooKeeper", logprob=-0.001).short
    assert not short.shown and short.reader["anchored"] is False


def test_a_yes_resting_on_a_negated_sentence_is_turned_to_no():
    text = "[2] yes"
    short = reading.judge_reply("Does the scheduler use a central lock?", SENTENCES, read_reply(text, 3),
                                completion(text, -0.01), EXTRACTIVE, True, None, 1.0).short  # fmt: skip
    assert short.text == "No" and short.sentence == 1 and short.reader["conflict"] is True
    assert short.reader["polarity"] == "yes"  # what the model said, kept for the record
    text = "[1] yes"
    short = reading.judge_reply("Does MapReduce rely on a lock service?", SENTENCES, read_reply(text, 3),
                                completion(text, -0.01), EXTRACTIVE, True, None, 1.0).short  # fmt: skip
    assert short.text == "Yes" and short.sentence == 0 and short.reader["conflict"] is False


def test_not_stated_shows_no_answer_and_leaves_not_found_to_the_collections_evidence():
    result = judged("How many GPUs trained the model?", "not stated")
    assert result.short.text == "" and not result.short.shown and result.found  # the extractive layer said found
    result = reading.judge_reply("How many GPUs?", SENTENCES, read_reply("not stated", 3), completion("not stated"),
                                 EXTRACTIVE, False, None, 1.0)  # fmt: skip
    assert not result.found


def test_an_answer_that_only_repeats_the_question_is_never_shown():
    short = judged("Which lock service called Chubby does MapReduce rely on?", "Chubby", threshold=0.0).short
    assert not short.shown and short.reader["echo"] is True and short.text == "Chubby"
    assert judged("Does MapReduce rely on Chubby or on ZooKeeper?", "Chubby", threshold=0.0).short.shown  # a choice
    assert "echo" not in judged("Which lock service does MapReduce rely on?", "Chubby", threshold=0.0).short.reader


def test_a_low_probability_answer_is_withheld_and_a_zero_threshold_shows_it():
    assert not judged("How many machines ran the jobs?", "1800 machines", logprob=-3.0).short.shown
    assert judged("How many machines ran the jobs?", "1800 machines", logprob=-3.0, threshold=0.0).short.shown


class FailingBackend:
    def complete(self, *args, **kwargs):
        raise ReaderUnavailable("the local reader ran out of time reading the prompt")


def test_a_failing_reader_falls_back_to_the_extractive_answer_and_says_why(monkeypatch, settings):
    monkeypatch.setattr(reading.runtime, "backend", lambda: FailingBackend())
    result = reading.read("Which lock service?", SENTENCES, EXTRACTIVE, True)
    assert result.short.text == EXTRACTIVE.text and result.found
    assert result.short.reader == {
        "backend": "extractive",
        "fallback": "the local reader ran out of time reading the prompt",
    }


def test_no_time_left_skips_the_model(monkeypatch):
    called = []
    monkeypatch.setattr(reading.runtime, "backend", lambda: called.append(1) or FailingBackend())
    result = reading.read("Which lock service?", SENTENCES, EXTRACTIVE, True, timeout_s=0.2)
    assert result.short.reader["fallback"] == "no time was left for the reader model"


def test_the_extractive_setting_uses_no_model(settings):
    settings.EVIDENCE_READER = "extractive"
    result = reading.read("Which lock service?", SENTENCES, EXTRACTIVE, True)
    assert result.short.reader == {"backend": "extractive"}


@pytest.mark.parametrize("choice", ["local", "/nowhere/model.gguf", "model.bin"])
def test_a_reader_that_cannot_load_leaves_the_extractive_answer_with_a_sentence(settings, tmp_path, choice):
    from evidence.reader import runtime

    settings.EVIDENCE_MODEL_DIR = tmp_path
    settings.EVIDENCE_READER = choice
    runtime.forget()
    try:
        result = reading.read("Which lock service?", SENTENCES, EXTRACTIVE, True)
    finally:
        runtime.forget()
    reason = result.short.reader["fallback"]
    assert result.short.text == EXTRACTIVE.text
    assert (
        ("make reader" in reason) if choice == "local" else ("does not exist" in reason or "is not a reader" in reason)
    )


def test_a_planners_short_answer_is_held_to_the_evidence_as_the_readers_is():
    from evidence.agent.planning.llm import anchored_exact

    quotes = [s.text for s in SENTENCES]
    assert anchored_exact("Chubby", quotes) == ("Chubby", True)
    assert anchored_exact("ZooKeeper", quotes) == ("No short answer found", False)
    assert anchored_exact("Yes", quotes) == ("Yes", True)
    assert anchored_exact("Unanswerable", quotes) == ("Unanswerable", True)


def test_the_calibration_is_pinned_and_an_altered_file_refused(tmp_path, monkeypatch):
    from evidence.reader import confidence

    fitted = confidence.calibration()
    assert fitted is not None and fitted.threshold > 0 and "prior_logit" in fitted.features
    (tmp_path / confidence.CALIBRATION).write_text(
        (confidence.PARAMS / confidence.CALIBRATION).read_text().replace('"threshold": ', '"threshold": 0.0001 + ')
    )
    (tmp_path / "SHA256SUMS").write_text((confidence.PARAMS / "SHA256SUMS").read_text())
    monkeypatch.setattr(confidence, "PARAMS", tmp_path)
    confidence.calibration.cache_clear()
    try:
        with pytest.raises(confidence.CalibrationRefused):
            confidence.calibration()
    finally:
        monkeypatch.undo()
        confidence.calibration.cache_clear()


def test_not_stated_to_a_yes_no_question_whose_sentence_denies_it_is_a_no():
    # The model says "not stated" where the sentence says "does not utilize": the sentence's negation answers "No".
    question = "Does the scheduler utilize a central lock?"
    result = reading.judge_reply(question, SENTENCES, read_reply("not stated", 3), completion("not stated"),
                                 EXTRACTIVE, False, None, 1.0)  # fmt: skip
    short = result.short
    assert result.found and short.text == "No" and short.sentence == 1 and short.reader["not_stated"] is True
    assert short.signals["conflict"] == 1.0 and short.signals["said_not_stated"] == 0.0
    # A sentence that states nothing negative: "not stated" stays unanswered.
    short = reading.judge_reply("Does MapReduce rely on a lock service?", SENTENCES, read_reply("not stated", 3),
                                completion("not stated"), EXTRACTIVE, True, None, 1.0).short  # fmt: skip
    assert short.text == "" and not short.shown


def test_not_stated_over_weak_evidence_is_not_found():
    weak = [Sentence(s.text, s.rank, s.score, 0.3) for s in SENTENCES]
    result = reading.judge_reply("How many GPUs?", weak, read_reply("not stated", 3), completion("not stated"),
                                 EXTRACTIVE, True, None, 1.0)  # fmt: skip
    assert not result.found


class Scripted:
    """A backend that replies from a script, one reply a prompt (the last one repeated), and keeps the prompts."""

    def __init__(self, *replies: str) -> None:
        self.replies, self.asked = list(replies), []

    def complete(self, system, user, max_tokens, timeout_s):
        self.asked.append(user)
        return completion(self.replies[min(len(self.asked), len(self.replies)) - 1])


def test_a_second_reading_of_the_cited_sentence_alone_is_asked_and_its_agreement_recorded(monkeypatch):
    monkeypatch.setattr(reading, "SECOND_READING", True)
    backend = Scripted("Chubby", "Chubby lock service")
    asked = backend.asked
    monkeypatch.setattr(reading.runtime, "backend", lambda: backend)
    short = reading.read("Which lock service does MapReduce rely on?", SENTENCES, EXTRACTIVE, True).short
    assert short.text == "Chubby" and len(asked) == 2
    # The second prompt holds the cited sentence alone.
    assert "[1] The MapReduce library relies" in asked[1] and "[2]" not in asked[1]
    assert short.signals["second_read"] == 1.0 and 0 < short.signals["second_agrees"] < 1  # "Chubby" in 3 words


def test_no_second_reading_when_the_answer_is_not_in_the_evidence(monkeypatch):
    monkeypatch.setattr(reading, "SECOND_READING", True)
    monkeypatch.setattr(reading, "ANSWERABLE_CHECK", False)  # the check reads it once more; not a second reading
    backend = Scripted("ZooKeeper")
    asked = backend.asked
    monkeypatch.setattr(reading.runtime, "backend", lambda: backend)
    short = reading.read("Which lock service does MapReduce rely on?", SENTENCES, EXTRACTIVE, True).short
    assert len(asked) == 1 and not short.shown and short.signals["second_read"] == 0.0


def test_a_yes_no_verdict_rests_on_the_sentence_that_shares_the_question_terms():
    text = "no"  # the model names no sentence
    short = reading.judge_reply("Does the scheduler utilize a central lock?", SENTENCES, read_reply(text, 3),
                                completion(text, -0.01), EXTRACTIVE, True, None, 1.0).short  # fmt: skip
    assert short.text == "No" and short.sentence == 1
    second = completion("yes")  # read alone, the model says "yes" to "does not utilize": the sentence turns it to no
    row = reading.second_signals(second, "no", 3, polar=True, question="Does the scheduler utilize a central lock?",
                                 sentence=SENTENCES[1].text)  # fmt: skip
    assert row["second_agrees"] == 1.0


def test_an_unnamed_yes_no_verdict_rests_on_the_best_ranked_sentence_unless_the_other_candidate_says_no():
    question = "Does base R provide classes for representing permutation vectors?"
    ranked = [
        Sentence("However, R provides no classes for representing permutation vectors.", 0, 5.0, 0.8),
        Sentence(
            "In this paper we present the package seriation for R, whose classes represent permutation "
            "vectors and provide a base for seriation methods.",
            1,
            4.0,
            0.6,
        ),
    ]
    short = reading.judge_reply(question, ranked, read_reply("yes", 2), completion("yes", -0.01), EXTRACTIVE, True,
                                None, 1.0).short  # fmt: skip
    assert short.text == "No" and short.sentence == 0 and short.reader["conflict"] is True
    plain = [ranked[1], Sentence("Permutation vectors are stored as integer vectors in R.", 1, 4.0, 0.6)]
    assert reading.verdict_sentence(question, [s.text for s in plain], None) == 0  # the best ranked, not the longest
    assert reading.verdict_sentence(question, [s.text for s in plain], 1) == 1  # the one the model named


def test_not_only_is_no_negation():
    from evidence.text.question import negated

    assert not negated("The method improves recall not only on news but also on papers.")
    assert negated("The method does not improve recall.") and negated("Not only is it slow, it fails to converge.")


def test_the_question_kind_and_a_hedged_sentence_are_confidence_inputs():
    assert reading.kind_signals("yes_no")["q_yes_no"] == 1.0
    assert reading.kind_signals("count")["q_number"] == 1.0 and reading.kind_signals("purpose")["q_purpose"] == 1.0
    assert reading.hedged("These results suggest that the effect may be small.")
    assert not reading.hedged("The effect was small.")


def test_by_default_the_model_reads_once(monkeypatch):
    backend = Scripted("Chubby")
    asked = backend.asked
    monkeypatch.setattr(reading.runtime, "backend", lambda: backend)
    assert reading.read("Which lock service does MapReduce rely on?", SENTENCES, EXTRACTIVE, True).short.shown
    assert len(asked) == 1


def test_an_item_of_a_list_is_shown_as_the_list_when_the_question_asks_for_several():
    sentences = [Sentence("The carriers were tested on C6 and Hep G2 cells.", 0, 5.0, 0.8)]
    for question, shown in (("Which cell lines were the carriers tested on?", "C6 and Hep G2"),
                            ("Which cell line was used first?", "C6")):  # fmt: skip
        short = reading.judge_reply(question, sentences, read_reply("C6", 1), completion("C6"), EXTRACTIVE, True,
                                    0.0, 1.0).short  # fmt: skip
        assert short.text == shown and sentences[0].text[short.start : short.end] == shown


def test_a_list_reply_no_sentence_writes_is_shown_as_the_sentence_lists_it():
    sentences = [Sentence("We repeat all the experiments 10 times.", 0, 5.0, 0.8),
                 Sentence("We employ precision, recall, F1 and accuracy as metrics.", 1, 4.0, 0.6)]  # fmt: skip
    short = reading.judge_reply("What evaluation metrics are reported?", sentences, read_reply("F1, Acc", 2),
                                completion("F1, Acc"), EXTRACTIVE, True, 0.0, 1.0).short  # fmt: skip
    assert short.text == "precision, recall, F1 and accuracy" and short.sentence == 1 and short.reader["anchored"]
    short = reading.judge_reply("What evaluation metrics are reported?", sentences, read_reply("BLEU, ROUGE", 2),
                                completion("BLEU, ROUGE"), EXTRACTIVE, True, 0.0, 1.0).short  # fmt: skip
    assert not short.shown and short.sentence is None  # no item stands in the evidence: withheld


def test_a_cell_read_from_another_column_than_the_question_names_is_that_columns_cell():
    sentences = [Sentence("Opportunity to ask questions 62.8 37.2 78", 0, 5.0, 0.8)]
    tables = ["Table 1 Patient-provider relationship; columns: Item Yes (%) No (%) Respondents"]
    question = "How many respondents answered whether they had an opportunity to ask questions?"
    for reply in ("62.8", "78"):
        short = reading.judge_reply(question, sentences, read_reply(reply, 1), completion(reply), EXTRACTIVE, True,
                                    0.0, 1.0, tables=tables).short  # fmt: skip
        assert short.text == "78" and sentences[0].text[short.start : short.end] == "78"
    short = reading.judge_reply("What share said yes to the opportunity to ask questions?", sentences,
                                read_reply("62.8", 1), completion("62.8"), EXTRACTIVE, True, 0.0, 1.0,
                                tables=tables).short  # fmt: skip
    assert short.text == "62.8"  # no column named: the model's cell stands


class Checked:
    """A backend whose answer has the given token log-probability, then replies to the answerability check."""

    def __init__(self, answer: str, logprob: float, check: str) -> None:
        self.replies, self.logprob, self.asked = [answer, check], logprob, []

    def complete(self, system, user, max_tokens, timeout_s):
        self.asked.append((user, max_tokens))
        text = self.replies[min(len(self.asked), 2) - 1]
        if len(self.asked) == 1:
            return completion(text, self.logprob)
        other = "yes" if text == "no" else "no"
        return Completion(text, [Step(text, -0.2, ((text, -0.2), (other, -1.8)))], 200, 30)


WEAK_ANSWER = -2.5  # a mean token log-probability that leaves the answer withheld, below the check's P(right)


def test_a_withheld_answer_the_check_says_no_to_ends_not_found(monkeypatch):
    backend = Checked("1800 machines", WEAK_ANSWER, "no")
    monkeypatch.setattr(reading.runtime, "backend", lambda: backend)
    result = reading.read("How many GPUs were the jobs run on?", SENTENCES, EXTRACTIVE, True)
    assert not result.short.shown and result.short.probability < reading.CHECK_P
    assert not result.found and result.short.reader["check"] == {"margin": -1.6, "not_found": True}
    check, max_tokens = backend.asked[1]
    # The check reads the same sentences and question (the model's state is kept), then the answer, for one token.
    assert check.startswith(backend.asked[0][0]) and "Proposed answer: 1800 machines" in check and max_tokens == 1


def test_a_withheld_answer_the_check_says_yes_to_stays_withheld_not_not_found(monkeypatch):
    backend = Checked("1800 machines", WEAK_ANSWER, "yes")
    monkeypatch.setattr(reading.runtime, "backend", lambda: backend)
    result = reading.read("How many machines were the jobs run on?", SENTENCES, EXTRACTIVE, True)
    assert result.found and not result.short.shown and result.short.reader["check"]["not_found"] is False


def test_a_shown_answer_and_a_yes_no_are_not_checked(monkeypatch):
    for question, answer, logprob in (
        ("Which lock service does MapReduce rely on?", "Chubby", -0.01),  # shown
        ("Does the scheduler utilize a central lock?", "yes", WEAK_ANSWER),  # a verdict
    ):
        backend = Checked(answer, logprob, "no")
        monkeypatch.setattr(reading.runtime, "backend", lambda backend=backend: backend)
        result = reading.read(question, SENTENCES, EXTRACTIVE, True)
        assert len(backend.asked) == 1 and result.found and "check" not in result.short.reader


def test_an_answer_not_in_the_evidence_is_checked_too(monkeypatch):
    # "ZooKeeper" is in no sentence: never shown, and a "no" from the check ends the run Not found.
    for check, found in (("no", False), ("yes", True)):
        backend = Checked("ZooKeeper", WEAK_ANSWER, check)
        monkeypatch.setattr(reading.runtime, "backend", lambda backend=backend: backend)
        result = reading.read("Which lock service does MapReduce rely on?", SENTENCES, EXTRACTIVE, True)
        assert len(backend.asked) == 2 and "Proposed answer: ZooKeeper" in backend.asked[1][0]
        assert result.found is found and not result.short.shown and result.short.reader["anchored"] is False


def test_the_check_is_off_by_its_switch(monkeypatch):
    monkeypatch.setattr(reading, "ANSWERABLE_CHECK", False)
    backend = Checked("1800 machines", WEAK_ANSWER, "no")
    monkeypatch.setattr(reading.runtime, "backend", lambda: backend)
    assert reading.read("How many GPUs were the jobs run on?", SENTENCES, EXTRACTIVE, True).found
    assert len(backend.asked) == 1


def test_the_checks_margin_reads_yes_and_no_from_the_first_token():
    reply = Completion("Yes", [Step("Yes", -0.1, (("Yes", -0.1), (" no", -2.6), ("no", -3.0)))], 10, 2)
    assert reading.yes_no_margin(reply) == pytest.approx(2.5)
    assert reading.yes_no_margin(Completion("Maybe", [Step("Maybe", -0.1, (("Maybe", -0.1),))], 10, 2)) == 0.0
    assert reading.yes_no_margin(Completion("", [], 10, 0)) == 0.0


def test_the_model_reads_each_papers_sentences_in_the_papers_order_and_its_cited_number_maps_back(monkeypatch):
    placed = [
        Sentence("The extrapolated richness for the whole data is 236.", 0, 5.0, 0.8, position=("b", 900)),
        Sentence("A sample of 25 plots gives 213.", 1, 4.0, 0.6, position=("a", 50)),
        Sentence("The whole data set has 225 species.", 2, 3.0, 0.4, position=("b", 100)),
        Sentence("Richness is counted per plot.", 3, 2.0, 0.3, position=("a", 10)),
    ]
    # Paper b (its best sentence first) before paper a, each by where its sentences stand.
    assert reading.paper_order(placed) == [2, 0, 3, 1]
    assert reading.paper_order([*placed[:3], Sentence("No place.", 3, 2.0, 0.3)]) == [0, 1, 2, 3]
    backend = Scripted("[2] 236")  # the model's second sentence is the best ranked one
    monkeypatch.setattr(reading.runtime, "backend", lambda: backend)
    monkeypatch.setattr(reading, "PAPER_ORDER", True)
    short = reading.read("What richness is extrapolated for the whole data?", placed, EXTRACTIVE, True).short
    prompt = backend.asked[0]
    assert prompt.index("225 species") < prompt.index("236.") < prompt.index("per plot") < prompt.index("213")
    assert short.text == "236" and short.sentence == 0
    monkeypatch.setattr(reading, "PAPER_ORDER", False)
    reading.read("What richness is extrapolated for the whole data?", placed, EXTRACTIVE, True)
    assert backend.asked[1].index("236.") < backend.asked[1].index("213") < backend.asked[1].index("225 species")


def test_a_verdict_is_shown_from_its_own_threshold_below_the_calibrations(monkeypatch):
    def judged_at(p: float):
        monkeypatch.setattr(reading, "p_right", lambda row: (p, 0.73))
        return reading.judge_reply("Does MapReduce rely on a lock service?", SENTENCES, read_reply("[1] yes", 3),
                                   completion("[1] yes"), EXTRACTIVE, True, None, 1.0).short  # fmt: skip

    assert judged_at(0.6).shown and judged_at(0.6).text == "Yes"
    assert not judged_at(0.45).shown
    # Another answer at the same P(right) stays withheld below the calibration's threshold.
    monkeypatch.setattr(reading, "p_right", lambda row: (0.6, 0.73))
    assert not judge_chubby().shown


def judge_chubby():
    return reading.judge_reply("Which lock service does MapReduce rely on?", SENTENCES, read_reply("Chubby", 3),
                               completion("Chubby"), EXTRACTIVE, True, None, 1.0).short  # fmt: skip


def test_a_question_asking_how_long_gets_a_value_in_time():
    sentences = [
        Sentence("The computation needs 8.06 seconds total time on a Pentium III.", 0, 3.0, 0.8),
        Sentence("Edwards and Berry obtained the same result using 80.000 simulation runs.", 1, 2.0, 0.6),
    ]
    question = "How long did the computation of the quantile take on a Pentium III?"
    short = reading.judge_reply(question, sentences, read_reply("[2] 80.000", 2), completion("[2] 80.000"), EXTRACTIVE,
                                True, 0.0, 1.0).short  # fmt: skip
    assert short.text == "8.06 seconds" and short.sentence == 0
    # An answer with its unit stands, and a question about something else keeps the model's number.
    short = reading.judge_reply(question, sentences, read_reply("[1] 8.06", 2), completion("[1] 8.06"), EXTRACTIVE,
                                True, 0.0, 1.0).short  # fmt: skip
    assert short.text == "8.06"
    other = reading.judge_reply("How many simulation runs did Edwards and Berry use?", sentences,
                                read_reply("[2] 80.000", 2), completion("[2] 80.000"), EXTRACTIVE, True, 0.0,
                                1.0).short  # fmt: skip
    assert other.text == "80.000"


def test_a_no_resting_on_a_negated_sentence_is_marked_for_the_confidence():
    sentences = [Sentence("A SpatialPointsDataFrame is always returned; drop=FALSE is not allowed.", 0, 3.0, 0.8)]
    short = reading.judge_reply("Is drop=FALSE allowed when selecting with [ ?", sentences, read_reply("[1] no", 1),
                                completion("[1] no"), EXTRACTIVE, True, 0.0, 1.0).short  # fmt: skip
    assert short.text == "No" and short.signals["negated_no"] == 1.0
    said = read_reply("[1] yes", 1)
    short = reading.judge_reply("Is drop=TRUE allowed when selecting with [ ?", sentences, said,
                                completion("[1] yes"), EXTRACTIVE, True, 0.0, 1.0).short  # fmt: skip
    assert short.text == "No" and short.signals["conflict"] == 1.0 and short.signals["negated_no"] == 1.0


LONGER = [
    *SENTENCES,
    Sentence("The master pings every worker periodically.", 3, 2.5, 0.35),
    Sentence("Each input split is about 64 MB.", 4, 2.0, 0.3),
    Sentence("Backup tasks are scheduled near the end of the job.", 5, 1.5, 0.2),
    Sentence("The sort program ran on 1764 workers.", 6, 1.2, 0.2),
]


def test_the_next_best_sentences_are_read_when_the_check_ends_the_best_ones_not_found(monkeypatch, settings):
    settings.EVIDENCE_READER_SENTENCES = 5
    monkeypatch.setattr(reading, "CHECK_P", 1.0)  # the check's "no" ends any answer Not found
    # An answer no sentence states, the check's "no", then the next best sentences' answer (confident: no check).
    backend = Scripted("2000 workers", "no", "[2] 1764 workers")
    monkeypatch.setattr(reading.runtime, "backend", lambda: backend)
    result = reading.read("How many workers ran the sort program?", LONGER, EXTRACTIVE, True)
    short = result.short
    assert len(backend.asked) == 3 and "[1] Backup tasks" in backend.asked[2] and "Chubby" not in backend.asked[2]
    # Numbered in the whole evidence list again: the run cites it there; a second look's answer is never shown.
    assert result.found and short.sentence == 6 and LONGER[6].text[short.start : short.end] == "1764 workers"
    assert not short.shown and short.reader["second_look"] is True and short.reader["first"]["check"]["not_found"]


def test_a_second_look_that_finds_nothing_leaves_the_first_reading(monkeypatch, settings):
    settings.EVIDENCE_READER_SENTENCES = 5
    monkeypatch.setattr(reading, "CHECK_P", 1.0)
    backend = Scripted("2000 workers", "no", "not stated")
    monkeypatch.setattr(reading.runtime, "backend", lambda: backend)
    result = reading.read("How many workers ran the sort program?", LONGER, EXTRACTIVE, True)
    assert len(backend.asked) == 3 and not result.found and "second_look" not in result.short.reader
    # A "not stated", or an answer from the best sentences, is never read again.
    for replies in (("not stated",), ("Chubby",)):
        backend = Scripted(*replies)
        monkeypatch.setattr(reading.runtime, "backend", lambda backend=backend: backend)
        reading.read("Which lock service does MapReduce rely on?", LONGER, EXTRACTIVE, True)
        assert len(backend.asked) == 1
