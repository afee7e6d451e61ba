"""Exact answers by question kind, cut from a cited sentence (hand-made sentences)."""

from evidence.agent.exact import candidates, negated, question_kind


def test_it_reads_the_kind_a_question_asks_for():
    assert question_kind("For what percentage of runs does it succeed?") == "percentage"
    assert question_kind("How many birds were ringed by 2015?") == "count"
    assert question_kind("At what concentration was the dye used?") == "quantity"
    assert question_kind("Did the treatment change the intensity?") == "yes_no"
    assert question_kind("Which library converts each page?") == "name"
    assert question_kind("What was the assay used for?") == "purpose"


def test_a_count_is_never_a_year_a_section_or_a_number_the_question_gives():
    sentence = (
        "At the onset of the study in 2014, 297 birds were ringed (Section 6), "
        "which rose to 322 by the end of the study in 2015."
    )
    found = [c.text for c in candidates("How many birds had been ringed by the end of the study in 2015?", sentence)]
    assert "2014" not in found and "2015" not in found and "6" not in found
    assert found[0] == "322"


def test_a_percentage_needs_a_percent_sign():
    found = candidates(
        "For what percentage of documents does labeling succeed?", "It succeeds for 76% of the 300 documents."
    )
    assert [c.text for c in found] == ["76%"]


def test_a_quantity_keeps_its_unit():
    found = candidates("At what concentration were the dyes used?", "All dyes were used at 0.1 mg/mL in buffer.")
    assert found[0].text == "0.1 mg/mL"


def test_yes_no_follows_negation():
    assert negated("CSP did not alter the intensity of microglia.")
    assert candidates("Did CSP alter the intensity?", "CSP did not alter the intensity.")[0].text == "No"
    assert candidates("Did CSP reduce it?", "CSP reduced the intensity.")[0].text == "Yes"


def test_a_name_is_the_words_the_question_does_not_say_and_comes_from_the_sentence():
    sentence = "We feed each page to Apache's PDFBox library to convert it into tokens."
    best = candidates("Which library is used to convert each page into tokens?", sentence)[0].text
    assert "PDFBox" in best and best in sentence


def test_a_which_question_takes_the_name_attached_to_its_noun():
    from evidence.agent.exact import asked_noun

    assert asked_noun("Which union bargaining model, in which firms keep discretion, is assumed?") == "model"
    q = "Which top-down method is named for fabricating oxidized sheets?"
    assert (
        candidates(q, "Hummer’s method is a top-down approach to fabricate oxidized sheets.")[0].text
        == "Hummer’s method"
    )
    q = "At which state does the robust strategy repair the machine?"
    assert candidates(q, "The robust strategy repairs the machine at state 49 already.")[0].text == "state 49"
    q = "What kinds of traps were used to catch the crows?"
    assert candidates(q, "Crows were caught using “ladder” and Larsen-traps.")[0].text == "ladder and Larsen-traps"


def test_a_purpose_is_what_the_sentence_says_is_done_with_it():
    q = "What was the safranin red assay used for?"
    found = candidates(q, "The biofilm biomass was quantified using the safranin red assay.")
    assert found[0].text == "biofilm biomass was quantified"


def test_a_yes_no_question_may_open_with_a_phrase():
    assert (
        question_kind("In the model with competition, is inward FDI welfare improving when firms export?") == "yes_no"
    )
    assert question_kind("What dropout rate was used when training the model?") != "year"


def test_a_quantity_prefers_the_unit_its_measure_is_written_in():
    sentence = (
        "Biofilms grew in 96 well plates and all photosensitizers were used at the same concentration (0.1 mg/mL)."
    )
    found = candidates("At what concentration were the photosensitizers used?", sentence, "quantity")
    assert found[0].text == "0.1 mg/mL" and found[0].fits
    assert not any(c.fits for c in found if c.text.startswith("96"))


def test_a_decimal_comma_stays_one_number_and_thousands_separators_too():
    found = [c.text for c in candidates("How many people lived in poverty?", "pasa de 135,9 millones a 221,4", "count")]
    assert set(found) == {"135,9", "221,4"}
    assert [c.text for c in candidates("How many documents were used?", "We used 12,345 documents.", "count")] == [
        "12,345"
    ]


def test_a_ratio_question_never_takes_a_dose_for_its_answer():
    sentence = "At 2.5 g/kg, the absorbability of CSP was 35-fold higher than that of curcuminoids."
    found = candidates("How many times higher was the absorbability in the high-dose group?", sentence, "quantity")
    assert found[0].text.startswith("35-fold") and not any(c.fits for c in found)
