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
