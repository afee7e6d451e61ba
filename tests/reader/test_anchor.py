"""The answer's place in its sentence: exact ranges, the forgiven differences, and answers that are not there."""

from evidence.reader.anchor import anchor

SENTENCES = [
    "Heparin-induced thrombocytopenia was reported in three studies.",
    "In this review we calculated the risk of bleeding and HIT to be 3.9% and 0.7% respectively.",
    "The MapReduce library relies on a distributed lock service called Chubby (2012 release).",
]


def test_it_returns_the_exact_range_in_the_named_sentence():
    found = anchor("3.9%", SENTENCES, named=1)
    assert found is not None and found.sentence == 1
    assert SENTENCES[1][found.start : found.end] == "3.9%"


def test_it_searches_every_sentence_when_the_named_one_lacks_the_answer():
    found = anchor("Chubby", SENTENCES, named=0)
    assert found is not None and found.sentence == 2
    assert SENTENCES[2][found.start : found.end] == "Chubby"


def test_it_forgives_case_dashes_spaces_and_an_article():
    found = anchor("heparin–induced  thrombocytopenia", SENTENCES)
    assert found is not None and SENTENCES[0][found.start : found.end] == "Heparin-induced thrombocytopenia"
    assert anchor("3.9 %", SENTENCES) is not None
    found = anchor("the distributed lock service", SENTENCES)
    assert found is not None and SENTENCES[2][found.start : found.end] == "distributed lock service"


def test_an_answer_that_is_not_in_the_evidence_is_not_anchored():
    assert anchor("4.2%", SENTENCES) is None
    assert anchor("Zookeeper", SENTENCES) is None
    assert anchor("", SENTENCES) is None


def test_it_matches_whole_words_only():
    assert anchor("201", SENTENCES) is None  # inside "2012"
    assert anchor("hin", SENTENCES) is None
    found = anchor("2012", SENTENCES)
    assert found is not None and SENTENCES[2][found.start : found.end] == "2012"


def test_a_number_among_a_figures_axis_ticks_is_no_stated_value():
    figure = "long − short Difference Tukey (sandwich Sₙ) −0.5 0.5 1.5 2.5"  # a plot's words in the text layer
    assert anchor("0.5", [figure]) is None
    # The same number stated elsewhere is anchored there, past the ticks.
    stated = ["Curves 16 18 20 22 24 of x", "where only the cutoff x1 = 18 is important"]
    found = anchor("18", stated, named=0)
    assert found is not None and found.sentence == 1 and stated[1][found.start : found.end] == "18"
    # Three numbers, uneven steps or equal values make no axis.
    assert anchor("2", ["scores 1 2 3 of the runs"]) is not None
    assert anchor("10", ["computers 1 2 5 10 20 41"]) is not None
    assert anchor("0.5", ["A 0.5 0.5 0.5 0.5"]) is not None


def test_reference_placeholders_are_never_part_of_an_answer():
    from evidence.reader.anchor import without_placeholders

    sentence = "We use the Turkish BIBREF10 corpus, shown in Table TABREF12."
    found = anchor("Turkish BIBREF10", [sentence])
    start, end = without_placeholders(sentence, found.start, found.end)
    assert sentence[start:end] == "Turkish"
    found = anchor("Table TABREF12", [sentence])
    assert (
        without_placeholders(sentence, found.start, found.end)[0]
        == without_placeholders(sentence, found.start, found.end)[1]
    )
    sentence = "The interactions are summarized in tab:int-stats and come from Food.com."
    found = anchor("tab:int-stats", [sentence])
    start, end = without_placeholders(sentence, found.start, found.end)
    assert start == end  # a LaTeX label is nothing to show


def test_a_percentage_anchors_on_a_table_rows_bare_number_and_only_there():
    rows = ["Privacy given 99 1 97", "Treated with respect 97.9 2.1 97"]
    found = anchor("97.9%", rows, named=1)
    assert found is not None and rows[1][found.start : found.end] == "97.9"
    prose = ["Of the outpatients, 97.9 said they were treated with respect in the survey."]
    assert anchor("97.9%", prose) is None  # in prose the unit must be printed


def test_a_clause_worded_at_its_edges_is_anchored_by_its_longest_run_and_a_short_run_is_not():
    from evidence.reader.anchor import anchor_run

    sentence = "This is important for the measurement of reaction time, since the dominant hand reacts faster."
    found = anchor_run("because it is important for the measurement of reaction time", [sentence])
    assert found is not None
    assert sentence[found.start : found.end] == "is important for the measurement of reaction time"
    assert anchor_run("for measuring the reaction time", [sentence]) is None  # 2 words in a row: proves nothing
    assert anchor_run("Chubby", [sentence]) is None


def test_a_count_anchors_where_the_sentence_spells_it_out_as_a_whole_word():
    sentences = ["Twenty eight of the cases were cooled to 4°C.", "We analyze four rather challenging problems."]
    found = anchor("28", sentences)
    assert found is not None and sentences[0][found.start : found.end] == "Twenty eight"
    found = anchor("4", sentences, named=1)
    assert found is not None and sentences[1][found.start : found.end] == "four"
    assert anchor("14", ["It took fourteen days."]) is not None
    assert anchor("4", ["It took fourteen days."]) is None  # "four" inside "fourteen"
    assert anchor("1", ["One of the cases was cooled."]) is None  # "one" is more often a pronoun than a count


def test_a_footnote_mark_ends_the_word_before_it():
    sentences = ["It is handled by Intel’s Threading-Building-Blocks⁴ library."]
    found = anchor("Intel's Threading-Building-Blocks", sentences)
    assert found is not None and sentences[0][found.start : found.end] == "Intel’s Threading-Building-Blocks"
    assert anchor("Threading", ["The Threadingx4 library"]) is None


def test_a_decimal_anchors_where_the_text_leaves_out_its_leading_zero():
    sentences = ["The default termination threshold epsilon is .1 for the solver."]
    found = anchor("0.1", sentences)
    assert found is not None and sentences[0][found.start : found.end] == ".1"
    assert anchor("0.1", ["It ran for 10.1 seconds."]) is None  # not the tail of another number
    assert anchor("0.5", ["The threshold is 0.5 here."]) is not None


def whole(sentence: str, answer: str, plural: bool) -> str:
    from evidence.reader.anchor import whole_value

    where = anchor(answer, [sentence])
    assert where is not None
    widened = whole_value(sentence, where, plural)
    return sentence[widened.start : widened.end]


def test_a_list_item_widens_to_the_list_for_a_question_asking_for_several():
    assert whole("By default, 80% and 95% prediction intervals are computed.", "95%", True) == "80% and 95%"
    assert whole("We searched PubMed, EMBASE, and Medline.", "PubMed", True) == "PubMed, EMBASE, and Medline"
    assert whole("We used C6 and Hep G2 cells.", "C6", True) == "C6 and Hep G2"
    assert whole("seeds at distance dtd = {2, 3} apart", "3", True) == "2, 3"
    assert whole("We searched PubMed, EMBASE, and Medline.", "EMBASE", True) == "PubMed, EMBASE, and Medline"
    assert whole("By default, 80% and 95% prediction intervals are computed.", "95%", False) == "95%"  # one thing
    speech = "It holds French (Fr), German (De), Dutch (Nl) and Chinese (Zh) speeches."
    assert whole(speech, "German", True) == "French (Fr), German (De), Dutch (Nl) and Chinese (Zh)"  # short forms


def test_a_list_is_widened_only_over_items_that_look_like_the_answer():
    assert whole("In 2010, 3 studies were done.", "3", True) == "3"  # a comma alone makes no list
    assert whole("We searched the archive and Medline.", "Medline", True) == "Medline"  # "the archive" is no item
    assert whole("We report precision, recall and accuracy.", "accuracy", True) == "precision, recall and accuracy"


def test_a_list_reply_no_sentence_writes_anchors_where_its_items_stand():
    from evidence.reader.anchor import anchor_items, whole_value

    sentences = ["We repeat all the experiments 10 times.", "We employ precision, recall, F1 and accuracy."]
    found = anchor_items("F1, Acc", sentences)  # "Acc" stands nowhere: "F1" is half of the items
    assert found == anchor("F1", sentences)
    widened = whole_value(sentences[1], found, plural=True, listed=True)  # the reader's list: any word is an item
    assert sentences[1][widened.start : widened.end] == "precision, recall, F1 and accuracy"
    assert whole_value(sentences[1], found, plural=True) == found  # a name's list takes names only
    corpus = "It includes French (Fr), German (De), Dutch (Nl), Russian (Ru) and Spanish (Es) speeches."
    # 2 of the 3 items stand in each sentence: the better ranked
    found = anchor_items("Spanish, English, German", ["A Spanish-English corpus.", corpus])
    assert found is not None and found.sentence == 0
    found = anchor_items("Spanish, German, Amharic", ["A Spanish corpus.", corpus])
    assert found is not None and corpus[found.start : found.end] == "German (De), Dutch (Nl), Russian (Ru) and Spanish"


def test_a_list_reply_anchors_only_where_half_its_items_stand_and_only_over_a_list():
    from evidence.reader.anchor import anchor_items

    assert anchor_items("F1, Acc, BLEU", ["We report F1 on the test set."]) is None  # 1 of 3
    assert anchor_items("BLEU", ["We report BLEU."]) is None  # one item is no list
    sentence = "BLEU rises on every test set of the shared task while the human raters prefer ROUGE."
    found = anchor_items("BLEU and ROUGE", [sentence])
    assert found is not None and sentence[found.start : found.end] == "BLEU"  # 12 words between: no list


def test_a_factor_widens_to_its_product_whatever_the_question():
    assert whole("The maze is of size 4 × 21 cells.", "21", False) == "4 × 21"
    assert whole("The maze has 21 cells.", "21", False) == "21"


def test_a_name_cut_short_of_the_asked_noun_runs_through_it():
    from evidence.reader.anchor import through_noun

    sentence = "DBSCAN received the SIGKDD 2014’s Test of Time Award in 2014."
    widened = through_noun(sentence, anchor("SIGKDD 2014", [sentence]), "award")
    assert sentence[widened.start : widened.end] == "SIGKDD 2014’s Test of Time Award"
    for sentence, answer, noun in (("DBSCAN is a clustering algorithm.", "DBSCAN", "algorithm"),  # not a name part
                                   ("We use the Adam optimizer.", "Adam", "optimizer"),  # nothing between
                                   ("The SIGKDD Award went to DBSCAN.", "SIGKDD", "")):  # fmt: skip
        where = anchor(answer, [sentence])
        assert through_noun(sentence, where, noun) == where


def test_a_whole_number_anchors_where_the_sentence_groups_its_thousands():
    sentence = ["A random sample of 1,456 persons was asked in 1979."]
    found = anchor("1456", sentence)
    assert found is not None and sentence[0][found.start : found.end] == "1,456"
    found = anchor("1456 persons", sentence)
    assert found is not None and sentence[0][found.start : found.end] == "1,456 persons"
    assert anchor("1979", sentence) is not None and anchor("145", sentence) is None


def test_a_whole_number_is_widened_to_the_decimal_it_begins_and_never_taken_from_its_decimals():
    sentence = ["Since version 4.1 glmnet can fit models for start-stop data."]
    found = anchor("4", sentence)
    assert found is not None and sentence[0][found.start : found.end] == "4.1"
    assert anchor("1", sentence) is None
    found = anchor("4", ["We ran 4. Then 4.1 came."])
    assert found is not None and found.end - found.start == 1  # "4." ending a sentence is no decimal


def test_either_end_of_a_range_is_widened_to_the_range():
    from evidence.reader.anchor import whole_value

    def widened(answer: str, sentence: str) -> str:
        found = anchor(answer, [sentence])
        assert found is not None
        wide = whole_value(sentence, found, plural=False)
        return sentence[wide.start : wide.end]

    storage = "In practice it is wise to allow for about 10% to 20% more storage."
    assert widened("20%", storage) == widened("10%", storage) == "10% to 20%"
    assert widened("5", "The size is between 3 and 5 nodes.") == widened("3", "The size is between 3 and 5 nodes.")
    assert widened("20", "pages 10-20 were read") == "10-20"
    # Two values joined by "and" without "between" are a list, not a range.
    assert widened("5", "We used 3 and 5 nodes.") == "5"


def test_a_percentage_anchors_however_the_sentence_writes_percent():
    sentences = ["It removes terms which have at least a 40 percentage of sparse elements.",
                 "The cache holds 12 per cent of the data.", "About 7% of runs fail."]  # fmt: skip
    for reply, index, written in (("40%", 0, "40 percentage"), ("12%", 1, "12 per cent"), ("7 percent", 2, "7%")):
        where = anchor(reply, sentences)
        assert where is not None and where.sentence == index
        assert sentences[index][where.start : where.end] == written
    assert anchor("41%", sentences) is None  # another number is not anchored
