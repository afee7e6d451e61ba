"""What a question names: its distinctive names (acronyms, mixed case, letters with digits), and those a text lacks."""

from __future__ import annotations

from evidence.text.question import distinctive_names, missing_names


def test_distinctive_names_are_acronyms_mixed_case_and_letters_with_digits():
    question = "What F1 score does SemEAGAT achieve on the MAVEN and ACE2005 datasets with GPT-2 in the Caribbean?"
    assert distinctive_names(question) == ["SemEAGAT", "MAVEN", "ACE2005", "GPT-2"]
    assert distinctive_names("What zone size of 10m x 10m gave 3.9% in 2010?") == []  # units and numbers are not


def test_a_name_is_missing_only_when_the_text_never_writes_it_in_any_spacing():
    text = "SemEAGAT was evaluated on ACE 2005; the Bi-LSTM CRF tagger ..."
    question = "What F1 does SemEAGAT get on MAVEN and ACE2005 with a BiLSTM-CRF?"
    assert missing_names(question, text) == ["MAVEN"]
    assert missing_names("Which dataset did the authors use?", text) == []


def test_a_pair_of_peoples_names_is_written_when_each_name_is():
    question = "Which loss does the Crammer-Singer multi-class SVM use, and what does Bray-Curtis measure?"
    text = "We follow the multi-class SVM of Crammer and Singer; Curtis (1957) is not cited for it."
    assert missing_names(question, text) == ["Bray-Curtis"]
    assert missing_names(question, "an SVM after Crammer-Singer, and Bray-Curtis") == []


def test_a_yes_no_question_may_follow_a_leading_phrase_but_a_wh_question_stays_one():
    from evidence.text.question import question_kind

    assert question_kind("Unlike a global F test, does the max-t test tell which hypotheses are rejected?") == "yes_no"
    assert question_kind("In the model with unions, is inward FDI welfare improving?") == "yes_no"
    assert question_kind("What method, is it the one used?") != "yes_no"
    assert question_kind("After training, how many epochs were run?") == "count"
    # A "when" clause leads as well; "When ...?" alone still asks for a time.
    assert question_kind("When gbm() computes the node estimates, does it iterate Newton-Raphson to convergence?") == (
        "yes_no"
    )
    assert question_kind("When was the survey conducted, in which year?") == "year"
    assert question_kind("When did the study start?") == "year"


def test_a_purpose_question_is_one_by_its_why_its_motivation_or_the_idea_behind_it():
    from evidence.text.question import question_kind

    assert question_kind("Why are networks marked bipartite=FALSE rather than given a partition size of zero?") == (
        "purpose"
    )  # a reason, though the question names a size
    assert question_kind("What was the main motivation for introducing partitioned variable projection?") == "purpose"
    assert question_kind("What is the idea behind adding the farthest city first?") == "purpose"
    assert question_kind("What was the safranin red assay used for in the study?") == "purpose"
    assert question_kind("What is DTPA used for?") == "purpose"
    assert question_kind("Which named entity recognizer was used for English?") == "name"  # not what it is for
    assert question_kind("What metrics are used for evaluation?") == "name"
    assert question_kind("What does the R package maxstat need the exactRankTests package for?") == "purpose"
    # What a thing is meant to achieve, or the aim of a thing, is its purpose.
    assert question_kind("What is SimpleCorpus in the tm package meant to achieve?") == "purpose"
    assert question_kind("What is the aim of the second module?") == "purpose"
    assert question_kind("What is the meaning of the second column?") != "purpose"
    assert question_kind("What does the name of the TIMP package stand for?") != "purpose"  # an idiom, no use


def test_a_question_asking_for_several_things_has_a_plural_head_noun():
    from evidence.text.question import asks_for_several

    assert asks_for_several("At what coverage levels does the package compute prediction intervals?")
    assert asks_for_several("Which literature databases were searched?")
    assert not asks_for_several("Which corpus was used?")
    assert not asks_for_several("Which dataset was used?")
    assert not asks_for_several("How many cells were counted?")


def test_a_description_question_asks_how_something_is_done_or_what_it_is():
    from evidence.text.question import asks_for_description

    for question in ("How was the dataset collected?", "What is a semicharacter architecture?",
                     'What does the "sensitivity" quantity denote?', "What were their results on the new dataset?",
                     "How can an asymmetric TSP be reformulated as a symmetric one?"):  # fmt: skip
        assert asks_for_description(question), question
    for question in ("How many cities were used?", "How large is the corpus?", "How does BM25 compare to TF-IDF?",
                     "What is the size of the maze?", "Why was the corpus collected?", "Is the corpus public?",
                     "What is the idea behind the farthest insertion heuristic?"):  # fmt: skip
        assert not asks_for_description(question), question


def test_a_yes_no_question_may_follow_two_leading_phrases():
    from evidence.text.question import question_kind

    assert question_kind("With bbmle's mle2, if the Hessian cannot be computed by finite differences, does the "
                         "function still return a fitted object?") == "yes_no"  # fmt: skip
    assert question_kind("In the model with X, is FDI welfare improving?") == "yes_no"
    assert question_kind("What, in the end, is the default?") != "yes_no"  # a "what" question stays one
    assert question_kind("Which method, if any, does the package use?") == "name"
