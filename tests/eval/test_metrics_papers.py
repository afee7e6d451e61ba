"""The papers benchmark's scoring rules, on hand-made cases."""

from evidence.eval.metrics_papers import (
    answer_correct,
    expected_calibration_error,
    is_abstention,
    locate_quote,
    normalize_tokens,
    papers_summary,
    score_question,
)


def test_it_normalizes_case_punctuation_articles_and_digit_letter_runs():
    assert normalize_tokens("The 684K triples, a Set!") == ["684", "k", "triples", "set"]


def test_it_accepts_a_gold_answer_inside_a_longer_exact_answer():
    assert answer_correct("about 684K training triples", ["684K"])
    assert not answer_correct("2010", ["322"])


def test_it_accepts_token_f1_of_one_half():
    assert answer_correct("linear SVM classifier", ["a linear SVM"])
    assert not answer_correct("support vector", ["linear SVM"])


def test_strict_numbers_must_agree_where_tokens_half_match():
    assert answer_correct("0.1672", ["0.1375"]) and not answer_correct("0.1672", ["0.1375"], strict=True)
    assert not answer_correct("1", ["-470 TPa-1"], strict=True)
    assert answer_correct("3,100 points", ["3,100 data points"], strict=True)
    assert answer_correct("15.12 hours", ["15.12"], strict=True)
    assert answer_correct("linear SVM classifier", ["a linear SVM"], strict=True)  # no number: F1 alone still counts


def test_it_needs_the_right_polarity_for_yes_no():
    assert answer_correct("No", ["no", "it did not"], "yes_no")
    assert not answer_correct("Yes", ["no", "it did not"], "yes_no")
    assert not answer_correct("It changed the intensity", ["no"], "yes_no")


def test_an_abstention_is_never_a_right_answer():
    assert is_abstention("Not found in this collection")
    assert is_abstention("Unanswerable")
    assert is_abstention("")
    assert not answer_correct("not found in this collection", ["not found"])


def test_it_locates_quotes_with_loose_whitespace():
    text = "Intro.  This labeling\nprocess succeeds for 76% of the documents. More."
    spans = locate_quote(text, "This labeling process succeeds for 76% of the documents.")
    assert len(spans) == 1
    start, end = spans[0]
    assert text[start:end] == "This labeling\nprocess succeeds for 76% of the documents."
    assert locate_quote(text, "succeeds for 77%") == []


def test_it_scores_evidence_hit_and_precision_by_overlap_in_the_same_document():
    gold = [("d1", 100, 150)]
    hit = score_question("76%", 0.9, [("d1", 140, 200), ("d1", 0, 50), ("d2", 100, 150)], ["76%"], gold, 1, 1)
    assert hit.evidence_hit and hit.answer_correct
    assert abs(hit.evidence_precision - 1 / 3) < 1e-9
    miss = score_question("76%", 0.9, [("d1", 150, 200)], ["76%"], gold, 1, 1)  # touching is not overlapping
    assert not miss.evidence_hit


def test_it_counts_abstentions_on_unanswerable_and_false_abstentions():
    scores = [
        score_question("Not found in this collection", 0.1, [], ["unanswerable"], [], 0, 0, "unanswerable"),
        score_question("0.5", 0.8, [("d", 0, 5)], ["unanswerable"], [], 0, 0, "unanswerable"),
        score_question("Not found in this collection", 0.1, [], ["76%"], [("d", 0, 9)], 1, 1, "number"),
        score_question("76%", 0.7, [("d", 0, 5)], ["76%"], [("d", 0, 9)], 1, 1, "number"),
    ]
    summary = papers_summary(scores)
    assert summary["abstain_correct"] == 0.5
    assert summary["abstained_unanswerable"] == 1
    assert summary["false_abstain"] == 0.5
    assert summary["answer_accuracy"] == 0.5
    assert summary["evidence_hit"] == 0.5


def test_ece_is_zero_when_confidence_matches_accuracy_and_large_when_overconfident():
    assert expected_calibration_error([0.75] * 4, [True, True, True, False]) == 0.0
    assert abs(expected_calibration_error([1.0, 1.0], [False, False]) - 1.0) < 1e-9
    assert abs(expected_calibration_error([0.05, 0.95], [False, True]) - 0.05) < 1e-9


def test_the_reliability_diagram_bins_confidence_against_accuracy():
    from evidence.eval.metrics_papers import reliability_bins

    bins = reliability_bins([0.05, 0.1, 0.9, 0.95, 1.0], [False, False, True, False, True])
    assert bins[0] == [0.0, 0.2, 2, 0.075, 0.0]
    assert bins[-1][:3] == [0.8, 1.0, 3] and abs(bins[-1][4] - 2 / 3) < 1e-3
    assert reliability_bins([], []) == []


def test_the_evaluation_page_draws_one_column_per_reliability_bin():
    from evidence.views.evaluations import RELIABILITY_PX, reliability_chart

    columns = reliability_chart([[0.0, 0.2, 5, 0.05, 0.0], [0.8, 1.0, 8, 0.84, 0.75], ["bad"]])
    assert [c["n"] for c in columns] == [5, 8]
    assert columns[0]["height"] == 0 and columns[1]["height"] == round(0.75 * RELIABILITY_PX)
    assert columns[1]["mean_y"] < columns[1]["y"]  # confidence 0.84 above accuracy 0.75: overconfident bin


def test_strict_answers_withheld_answers_and_confidence_about_the_best_candidate():
    from evidence.eval.metrics_papers import papers_summary, score_question

    gold = [("d", 0, 10)]
    long_sentence = "In this review we calculated the risk of bleeding and HIT to be 3.9% and 0.7% respectively"
    sentence = score_question(long_sentence, 0.9, gold, ["3.9%"], gold, 1, 1, "number")
    assert sentence.answer_correct and not sentence.answer_strict  # a sentence is evidence, not an exact answer
    withheld = score_question("No short answer found", 0.3, gold, ["3.9%"], gold, 1, 1, "number", candidate="3.9%")
    assert withheld.withheld and not withheld.answer_strict and withheld.candidate_strict
    wrong = score_question("0.7%", 0.8, gold, ["3.9%"], gold, 1, 1, "number", candidate="0.7%")
    summary = papers_summary([withheld, wrong])
    assert summary["answer_strict"] == 0.0 and summary["candidate_strict"] == 0.5
    assert summary["withheld"] == 0.5 and summary["confident_wrong"] == 0.5
    assert summary["auroc"] == 0.0  # the right candidate had the lower confidence


def test_a_quote_is_found_whether_its_digits_are_plain_or_raised():
    text = "handled by Intel’s Threading-Building-Blocks⁴ library; mobility 1131 cm²V−1s−1 here"
    assert locate_quote(text, "Threading-Building-Blocks4 library") == [(19, 53)]
    assert locate_quote(text, "1131 cm2V−1s−1") == [(64, 78)]
    assert locate_quote("CO₂ and H2O", "CO2 and H₂O") == [(0, 11)]
    assert locate_quote(text, "Blocks5 library") == [], "a digit matches only its own forms"
