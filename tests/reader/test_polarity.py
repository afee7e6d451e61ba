"""A "yes" resting on a negated sentence is withheld."""

from evidence.reader.polarity import polarity_conflict


def test_a_yes_over_a_negated_sentence_conflicts():
    sentence = "Unlike earlier systems, the scheduler does not utilize a central lock."
    assert polarity_conflict("Does the scheduler use a central lock?", "yes", sentence)
    assert not polarity_conflict("Does the scheduler use a central lock?", "no", sentence)


def test_a_plain_sentence_and_a_negative_question_are_not_checked():
    plain = "The scheduler uses a central lock."
    assert not polarity_conflict("Does the scheduler use a central lock?", "yes", plain)
    assert not polarity_conflict("Is X larger than Y?", "no", "X is smaller than Y.")
    assert not polarity_conflict("Does the scheduler not use a lock?", "yes", "It does not use a lock.")
    assert not polarity_conflict("Which lock?", None, "It does not use a lock.")


def test_a_yes_to_more_than_a_sentence_allows_conflicts():
    limited = "The solver is optimized for the radial basis function kernel only."
    assert polarity_conflict("Is the solver optimized for kernels other than the RBF kernel?", "yes", limited)
    assert polarity_conflict("Will it enumerate trees for any number of tips?", "yes", "It accepts only n up to 9.")
    assert polarity_conflict("Does it accept processes other than white noise?", "yes", "It only accepts white noise.")


def test_a_limit_the_question_does_not_go_beyond_is_no_conflict():
    assert not polarity_conflict("Is the solver optimized for the RBF kernel?", "yes", "It is tuned for RBF only.")
    adds = "It supports not only the RBF kernel but also polynomial kernels."
    assert not polarity_conflict("Does it support kernels other than RBF?", "yes", adds)
    assert not polarity_conflict("Does it support any kernel?", "yes", "It is used only if the data are scaled.")
