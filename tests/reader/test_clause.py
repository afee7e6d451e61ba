"""A "why" question answered by the clause that states the reason, cut from its sentence by its marker."""

from evidence.answers.ranker_rows import Sentence
from evidence.reader import reading
from evidence.reader.clause import clause_answer, reason_clause
from evidence.reader.prompt import read_reply
from evidence.text.question import question_kind
from tests.reader.test_read import EXTRACTIVE, completion


def cut(text: str) -> str | None:
    span = reason_clause(text)
    return text[span[0] : span[1]] if span else None


def test_a_reason_clause_is_cut_at_its_marker_and_ends_with_its_clause():
    assert cut("The default is FALSE because several packages use rtree() in their examples.") == (
        "because several packages use rtree() in their examples"
    )
    # An opening clause ends at its comma; "as" and "the reason ... is that" are left out of the clause.
    assert cut("In order to allow a partition size of zero, networks are marked FALSE.") == (
        "In order to allow a partition size of zero"
    )
    assert cut("It is slower as it is creating the directory structure for codeML.") == (
        "it is creating the directory structure for codeML"
    )
    assert cut("The argument for trees is that one deviant species has a small influence, since it counts once.") == (
        "one deviant species has a small influence"
    )
    assert cut("We memoise the cubature during maximization to avoid integration for unchanged parameters.") == (
        "to avoid integration for unchanged parameters"
    )


def test_no_clause_where_no_reason_is_given():
    assert cut("Since 2004 the data has grown.") is None  # "since" with a year is time, not a reason
    assert cut("A is faster, as shown in Table 2.") is None
    assert cut("We translated the traits to pairwise distances.") is None  # "to" before no purpose verb
    assert cut("The model has as many states as there are regimes.") is None  # a comparison, not a reason
    assert cut("To achieve this, the measure is applied to binary data only.") is None  # it only points back
    # A reply cut at the model's token limit ("... spectroscopy since the"): a marker and a function word.
    assert cut("Common in chemistry where developments in spectroscopy since the") is None


def test_more_ways_of_stating_a_reason():
    assert cut("It must hold as many equations as there are variables, for obvious identification reasons.") == (
        "for obvious identification reasons"
    )
    assert cut("The main motivation was to apply the functional without operating on large matrices.") == (
        "to apply the functional without operating on large matrices"
    )


def test_a_denied_purpose_is_passed_over_and_a_closing_aside_left_out():
    text = (
        "In this example the goal is not to make any comments about the methodology, but rather to show how the "
        "plots can be enhanced using hexagon binning due to the large number of points (n = 8, 448 probes)."
    )
    assert cut(text) == "due to the large number of points"
    assert cut("We chose it not because of its cost.") is None  # the only reason given is denied
    assert cut("We never use it because of its cost.") == "because of its cost"  # the reason it is not used
    assert cut("Because of the integrations in the log-likelihood (4), it is slow.") == (
        "Because of the integrations in the log-likelihood"
    )
    assert cut("It is fast since (as shown) it caches.") == "since (as shown) it caches"  # an aside inside stays


def test_the_clause_comes_from_the_sentence_sharing_the_most_of_the_question():
    texts = [
        "The runs were slow because the disk was shared.",
        "The counters are 64 bit since for millions of documents the counters would overflow.",
    ]
    clause = clause_answer("Why are the counters stored in 64 bit?", texts)
    assert clause is not None and clause.sentence == 1
    assert texts[1][clause.start : clause.end] == "since for millions of documents the counters would overflow"
    assert clause_answer("Why was the scheduler rewritten?", ["The scheduler was rewritten."]) is None


def test_a_purpose_question_the_model_did_not_answer_is_answered_by_the_clause():
    sentences = [
        Sentence("The default of equiprob is FALSE because several packages use rtree() with set.seed().", 0, 5.0, 0.8),
        Sentence("Topologies are drawn in equal proportions.", 1, 4.0, 0.5),
    ]
    for reply in ("not stated", "FALSE", "yes"):
        short = reading.judge_reply("Why does the equiprob option default to FALSE?", sentences, read_reply(reply, 2),
                                    completion(reply), EXTRACTIVE, True, 0.0, 1.0).short  # fmt: skip
        assert short.text == "because several packages use rtree() with set.seed()", reply
        assert short.sentence == 0 and short.reader["clause"] is True and short.signals["clause"] == 1.0
        assert sentences[0].text[short.start : short.end] == short.text
    # A reason the model worded itself, anchored and longer than a name, stands.
    reply = "several packages use rtree() with set.seed()"
    short = reading.judge_reply("Why does the equiprob option default to FALSE?", sentences, read_reply(reply, 2),
                                completion(reply), EXTRACTIVE, True, 0.0, 1.0).short  # fmt: skip
    assert short.text == reply and "clause" not in short.reader
    assert short.signals["clause"] == 1.0  # the clause but for its marker: a reason clause to the confidence


def test_a_reply_that_says_more_than_its_reason_is_cut_to_the_reason():
    reply = "HC3 performs best in small samples as it gives less weight to influential points"
    sentences = [Sentence(f"{reply}.", 0, 5.0, 0.8)]
    short = reading.judge_reply("Why does HC3 perform best in small samples?", sentences, read_reply(reply, 1),
                                completion(reply), EXTRACTIVE, True, 0.0, 1.0).short  # fmt: skip
    assert short.text == "it gives less weight to influential points"
    assert sentences[0].text[short.start : short.end] == short.text and short.signals["clause"] == 1.0
    # A reply to another kind of question is never cut.
    short = reading.judge_reply("Which estimator performs best in small samples?", sentences, read_reply("HC3", 1),
                                completion("HC3"), EXTRACTIVE, True, 0.0, 1.0).short  # fmt: skip
    assert short.text == "HC3" and short.signals["clause"] == 0.0


def test_a_how_question_is_answered_by_the_clause_that_says_how():
    from evidence.reader.clause import means_clause

    def means(text: str) -> str | None:
        span = means_clause(text)
        return text[span[0] : span[1]] if span else None

    assert means("An asymmetric TSP is reformulated as a symmetric one by doubling the number of cities.") == (
        "by doubling the number of cities"
    )
    assert means("The corpus was collected through crowdsourcing, which took a year.") == "through crowdsourcing"
    assert means("Accuracy was measured by the authors.") is None  # "by" before no "-ing": who, not how
    assert means("We used a new corpus.") is None


def test_a_description_question_the_model_did_not_answer_gets_the_means_clause_or_the_sentence():
    sentences = [
        Sentence("Contributors record voice clips by reading from a bank of donated sentences.", 0, 5.0, 0.8),
        Sentence("Sensitivity is the number of distinct outputs an attacker can induce.", 1, 4.0, 0.6),
    ]

    def read(question: str, reply: str, threshold: float | None):
        return reading.judge_reply(question, sentences, read_reply(reply, 2), completion(reply), EXTRACTIVE, True,
                                   threshold, 1.0).short  # fmt: skip

    short = read("How were the voice clips recorded?", "not stated", None)
    assert short.text == "by reading from a bank of donated sentences" and short.reader["description"] == "means"
    assert sentences[0].text[short.start : short.end] == short.text
    # A whole sentence is evidence: given as the answer only to a caller that takes every best answer (QASPER).
    for threshold, shown in ((0.0, True), (None, False)):
        short = read("What does the sensitivity of a model denote?", "a number", threshold)
        assert short.text == "Sensitivity is the number of distinct outputs an attacker can induce"
        assert short.sentence == 1 and short.reader["description"] == "sentence" and short.shown is shown
    # A description the model gave itself, longer than a name, stands.
    short = read("How were the voice clips recorded?", "record voice clips by reading", 0.0)
    assert short.text == "record voice clips by reading" and "description" not in short.reader


def test_a_reason_before_which_is_why_and_an_opening_as_clause():
    assert cut("Unsurprisingly, it triggers numerical instabilities, which is why quaternions are used.") == (
        "it triggers numerical instabilities"
    )
    assert cut("As the discretized equation is a Newton's equation of motion, it can be implemented in LAMMPS.") == (
        "the discretized equation is a Newton's equation of motion"
    )
    assert cut("2 Implementation As the equation is one of motion, it fits.") == "the equation is one of motion"
    assert cut("As shown in Table 2, A is faster than B.") is None  # it points at the text
    assert cut("As a result, A is faster than B.") is None


def test_a_reply_inside_the_sentences_reason_clause_is_widened_to_the_clause():
    sentences = [Sentence("As the governing equation is a Newton's equation of motion, peridynamics fits LAMMPS.", 0,
                          5.0, 0.8)]  # fmt: skip
    reply = "Newton's equation of motion"
    short = reading.judge_reply("Why could peridynamics be implemented in LAMMPS?", sentences, read_reply(reply, 1),
                                completion(reply), EXTRACTIVE, True, 0.0, 1.0).short  # fmt: skip
    assert short.text == "the governing equation is a Newton's equation of motion"


def test_a_reason_clause_confident_enough_to_show_is_no_not_found():
    from evidence.reader.backends import Completion, Step

    sentences = [Sentence("Dynare is popular.", 0, 3.0, 0.1),
                 Sentence("For obvious identification reasons, the model must contain as many equations as there are "
                          "endogenous variables.", 1, 3.0, 0.2)]  # fmt: skip
    said = Completion("not stated", [Step("not", -0.8, (("not", -0.8), ("For", -1.0))),
                                     Step(" stated", -0.01, ((" stated", -0.01),))], 200, 120)  # fmt: skip
    question = "Why must the model contain as many equations as there are endogenous variables?"
    result = reading.judge_reply(question, sentences, read_reply("not stated", 2), said, EXTRACTIVE, False, None, 1.0)
    # "not stated" over weak evidence (0.2) would end Not found; the clause is shown instead.
    assert result.short.signals["evidence_best"] < reading.WEAK_EVIDENCE
    assert result.found and result.short.shown and result.short.text == "For obvious identification reasons"


def test_a_reason_clause_withheld_is_no_not_found_unless_weak(monkeypatch):
    from evidence.reader.backends import Completion, Step

    sentences = [Sentence("SPH is used.", 0, 3.0, 0.1),
                 Sentence("The polynomial kernel is attractive because it does not require a square root.", 1, 3.0,
                          0.2)]  # fmt: skip
    said = Completion("not stated", [Step("not", -0.1, (("not", -0.1),)), Step(" stated", -0.01, ())], 200, 120)
    question = "Why is the polynomial kernel attractive computationally?"

    def judged(p: float):
        monkeypatch.setattr(reading, "p_right", lambda row: (p, 0.73))
        return reading.judge_reply(question, sentences, read_reply("not stated", 2), said, EXTRACTIVE, False, None, 1.0)

    withheld = judged(0.6)  # below the threshold to show, above the check's weak answer
    assert withheld.found and not withheld.short.shown and withheld.short.text.startswith("because")
    assert not judged(0.3).found  # a weak clause over weak evidence: Not found


def test_a_reason_clause_that_restates_the_question_is_passed_over(monkeypatch):
    from evidence.reader.backends import Completion, Step

    restated = "In order to fit a Bradley-Terry model to these data using BTm, the counts are arranged."
    reason = "Self-citations are left out, since the abilities are relative rather than absolute quantities."
    said = Completion("not stated", [Step("not", -0.1, (("not", -0.1),)), Step(" stated", -0.01, ())], 200, 120)
    monkeypatch.setattr(reading, "p_right", lambda row: (0.9, 0.73))
    question = "Why are self-citations left out when the package fits a Bradley-Terry model to the data?"
    # The restating clause shares the most of the question, yet the other sentence's reason is the answer.
    sentences = [Sentence(restated, 0, 3.0, 0.9), Sentence(reason, 1, 2.0, 0.8)]
    result = reading.judge_reply(question, sentences, read_reply("not stated", 2), said, EXTRACTIVE, True, None, 1.0)
    assert result.short.text == "since the abilities are relative rather than absolute quantities"
    assert result.short.sentence == 1 and result.short.shown
    # With no other reason given, nothing is shown.
    alone = reading.judge_reply(question, sentences[:1], read_reply("not stated", 1), said, EXTRACTIVE, True, None,
                                1.0).short  # fmt: skip
    assert not alone.text and not alone.shown
    # The same clause to a question it does not restate is taken.
    other = "Why are the counts arranged for BTm?"
    shown = reading.judge_reply(other, sentences[:1], read_reply("not stated", 1), said, EXTRACTIVE, True, None, 1.0)
    assert shown.short.shown and shown.short.text.startswith("In order to fit")


def test_reasons_stated_by_an_adverb_a_participle_or_a_clause_opening_as():
    assert cut("The recursions are done in C to dramatically increase speed.") == "to dramatically increase speed"
    assert cut("We sort at creation, guaranteeing that identical sets have identical representation.") == (
        "guaranteeing that identical sets have identical representation"
    )
    assert cut("We use imputation, as Haley-Knott regression performs poorly under selective genotyping, which "
               "was used here.") == "Haley-Knott regression performs poorly under selective genotyping"  # fmt: skip
    assert cut("A is faster, as described in Table 2.") is None  # "as" pointing at the text, no verb of its own
    # A sentence cut at a line break's hyphen ("order-") gives no clause.
    assert cut("Indeed, since set elements are order-") is None


def test_a_question_asking_what_a_thing_is_for_is_answered_by_its_use():
    text = ("It depends on the packages exactRankTests for the computation of the distribution of linear rank "
            "statistics (Hothorn, 2001) and mvtnorm for the multivariate normal (Hothorn et al., 2001).")  # fmt: skip
    span = reason_clause(text, uses=True)
    assert span and text[span[0] : span[1]] == "for the computation of the distribution of linear rank statistics"
    assert reason_clause(text) is None  # "for the computation" answers only a question asking what it is for
    question = "What does the R package maxstat need the exactRankTests package for?"
    assert question_kind(question) == "purpose"
    texts = [
        "The package maxstat provides an interface for the approximation of the null distribution of statistics.",
        text,
    ]
    # Both sentences share two of the question's terms: the one the model's answer rests on is taken.
    assert clause_answer(question, texts).sentence == 0
    assert clause_answer(question, texts, cited=1).sentence == 1
    sentences = [Sentence(t, i, 3.0 - i, 0.8) for i, t in enumerate(texts)]
    short = reading.judge_reply(question, sentences, read_reply("exactRankTests", 2), completion("exactRankTests"),
                                EXTRACTIVE, True, 0.0, 1.0).short  # fmt: skip
    assert short.text == "for the computation of the distribution of linear rank statistics" and short.sentence == 1


def test_a_clause_after_a_short_lead_or_before_a_colon_ends_with_its_own_clause():
    # "Note that in order to ...," opens its sentence: the clause ends at its comma, not with the main clause.
    assert cut("Note that in order to avoid ranking bias, we break ties by adding a small amount of random noise.") == (
        "in order to avoid ranking bias"
    )
    # A colon before the code it introduces ends the clause.
    assert cut("Let us use a smaller factor d in order to investigate how sparse the X matrix would be: > d2 <- "
               "factor(1:150) # 10 times smaller > tmp2 <- expand.grid(id=id, a=a, b=b, d=d2)") == (
        "in order to investigate how sparse the X matrix would be"
    )  # fmt: skip
    # A clause too long to be an answer ends at its first aside.
    text = ("The rates are derived from the register, where we have omitted the blood-glucose criteria, because there "
            "is compelling evidence that these have quite a low specificity (particularly in the younger ages among "
            "women), and do not substantially contribute to the sensitivity.")  # fmt: skip
    assert cut(text) == "because there is compelling evidence that these have quite a low specificity"
    # What a thing is necessary for is its purpose.
    needed = "Having individual as the primary sampling unit is necessary for correct standard error calculation."
    assert cut(needed) == "for correct standard error calculation"
    assert cut("The unit is necessary.") is None
    # A clause that only announces its reasons gives none: they follow in the next sentences.
    assert cut("We use the numeric type for two reasons.") is None
    assert cut("We use it for two reasons: speed and range.") is None


def test_what_a_thing_is_defined_for_in_a_paper_is_read_from_the_sentence_about_the_thing():
    question = "What is the rseed variable defined for in Zeileis, Meyer and Hornik's vcd vignette on shadings?"
    assert question_kind(question) == "purpose"
    texts = [
        "This vignette is a companion paper to Zeileis, Meyer, and Hornik (2007) which introduces extensions to "
        "residual-based shadings for enhancing mosaic and association plots.",
        "Furthermore, we define a rseed which will be used as the random seed for making the results of the "
        "permutation tests below exactly reproducible.",
    ]
    # The first sentence shares more of the question, but only of where the thing stands (the paper): the second
    # speaks of the thing asked about.
    clause = clause_answer(question, texts)
    assert clause is not None and clause.sentence == 1
    assert texts[1][clause.start : clause.end] == (
        "for making the results of the permutation tests below exactly reproducible"
    )
    # Without "in <paper>", "defined for" asks nothing of a use.
    assert question_kind("What is the rseed variable defined as?") != "purpose"


def test_a_reply_in_the_questions_own_words_gives_no_reason():
    sentences = [Sentence("We have chosen to use S4 classes and methods style (Chambers, 1998) to allow validation of "
                          "objects created.", 0, 5.0, 0.8)]  # fmt: skip
    reply = "S4 classes and methods style"
    short = reading.judge_reply("Why did Pebesma and Bivand choose the S4 classes and methods style for sp?", sentences,
                                read_reply(reply, 1), completion(reply), EXTRACTIVE, True, 0.0, 1.0).short  # fmt: skip
    assert short.text == "to allow validation of objects created" and short.reader["clause"] is True


def test_what_a_thing_is_intended_for_is_what_its_sentence_says_it_is_intended_as():
    question = "What is the fork-based process manager of the MPI library primarily intended for?"
    text = ("The gforker process manager is primarily intended as a debugging aid as it simplifies development and "
            "testing of MPI programs on a single node or processor.")  # fmt: skip
    # Without the question's "intended", the sentence's reason is its "as it ..." clause.
    assert cut(text) == "it simplifies development and testing of MPI programs on a single node or processor"
    span = reason_clause(text, intent=True)
    assert span is not None and text[span[0] : span[1]] == "as a debugging aid"
    assert reason_clause("The tool is meant to simplify testing of programs.", intent=True) is not None
    assert reason_clause("The tool simplifies testing.", intent=True) is None
    # The model replied with the reason the sentence goes on to give: the intended use is the answer.
    reply = "it simplifies development and testing of MPI programs on a single node or processor"
    sentences = [Sentence("Hydra is the default process manager.", 0, 5.0, 0.8), Sentence(text, 1, 4.0, 0.7)]
    short = reading.judge_reply(question, sentences, read_reply(reply, 2), completion(reply), EXTRACTIVE, True, 0.0,
                                1.0).short  # fmt: skip
    assert short.text == "as a debugging aid" and short.sentence == 1
    # A "why" question keeps the reason.
    why = reading.judge_reply("Why is the gforker process manager intended as a debugging aid?", sentences,
                              read_reply(reply, 2), completion(reply), EXTRACTIVE, True, 0.0, 1.0).short  # fmt: skip
    assert why.text != "as a debugging aid"
