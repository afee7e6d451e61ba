"""Tables in plain text: a run of rows (mostly cells of numbers) with the header and caption above it."""

from __future__ import annotations

from evidence.text.tables import (
    column_headers,
    find_tables,
    is_row,
    key_row,
    labelled_row,
    split_frame,
    table_frames,
    table_leads,
)

PAGE = [
    "the staff are indeed aware of these problems and open",
    "Table 1 Patient-provider relationship during consultation",
    "Item Yes (%) No (%) Respondents",
    "Privacy given 99 1 97",
    "Health conditions told 88.7 11.3 97",
    "Opportunity to ask",
    "questions 62.8 37.2 78",
    "Treated with respect 97.9 2.1 97",
    "Agyeman-Duah et al. BMC Health Services Research 2014, 14:1 Page 4 of 10",
]


def test_a_row_is_mostly_cells_and_prose_with_numbers_is_not():
    assert is_row("Treated with respect 97.9 2.1 97")
    assert is_row("Block 4 - - - AH")  # dashes stand for empty cells
    assert is_row("throughput (documents/hour) 35.3K 46.2K 48.4K 75.0K")
    assert not is_row("and 59% during the night shift (4 pm to 8 am). The Medical")
    assert not is_row("437 males and 578 females in June 2010, which translates")
    assert not is_row("to December 2010 included two clinical officers (certified")


def test_a_table_is_its_rows_with_the_header_and_caption_above():
    (table,) = find_tables(PAGE)
    assert [PAGE[k] for k in table.caption] == ["Table 1 Patient-provider relationship during consultation"]
    assert [PAGE[k] for k in table.header] == ["Item Yes (%) No (%) Respondents"]
    assert (PAGE[table.first], PAGE[table.last]) == ("Privacy given 99 1 97", "Treated with respect 97.9 2.1 97")
    assert table.start == 1  # the prose line above stays prose


def test_two_number_lines_in_prose_make_no_table():
    lines = ["We trained 3 models for 10 epochs", "on 2 GPUs with 16 GB each, which", "took two days in all."]
    assert find_tables(lines) == []


def test_without_a_caption_a_prose_line_is_no_header():
    lines = ["which the models were compared with in the study of the", "A 1.0 2.0", "B 3.0 4.0", "C 5.0 6.0"]
    (table,) = find_tables(lines)
    assert table.header == [] and table.caption == []


def test_each_row_reads_its_tables_caption_and_header_across_a_wrapped_label():
    texts = PAGE[1:8]
    frames = table_frames(texts)
    assert frames[:2] == [("", ""), ("", "")]  # the caption and the header are no rows
    assert set(frames[2:4] + frames[5:]) == {(PAGE[1], PAGE[2])}
    assert frames[4] == ("", "")  # "Opportunity to ask": a wrapped label, no row
    assert table_frames(["We measured it.", "A 1.0 2.0", "B 3.0 4.0"])[1:] == [("", ""), ("", "")]  # a sentence


def test_a_rows_cells_are_named_by_a_header_that_pairs_up_with_them():
    header = "Item Yes (%) No (%) Respondents"  # the label column, then a bracketed unit joined to its column
    assert labelled_row("Treated with respect 97.9 2.1 97", header) == (
        "Treated with respect: Yes (%) = 97.9; No (%) = 2.1; Respondents = 97"
    )
    assert labelled_row("BK 0.431 -0.343", "Degree Closeness") == "BK: Degree = 0.431; Closeness = -0.343"
    # A repeated word tells the two-word columns; the header's first words name the label column.
    header = "Dataset Type Order Size Avg Degree Max Degree"
    assert labelled_row("Google+ (GP) undirected 23628 39242 3.3217 2771", header) == (
        "Google+ (GP) undirected: Order = 23628; Size = 39242; Avg Degree = 3.3217; Max Degree = 2771"
    )
    assert labelled_row("SciBERT fine-tune 83.3 86.1 78.0", "Training signal CLS USR All") == (
        "SciBERT fine-tune: CLS = 83.3; USR = 86.1; All = 78.0"
    )
    # A header of numbers (a row taken for one) names nothing; nor do columns that cannot pair with the cells.
    assert labelled_row("news runtime .40 .72 1.75", "initial # topics/word 12.2 17.0 26.8") == ""
    header = "median Kaplan-Meier Nelson-Aalen Powell Leurgans G1 Leurgans G2"
    # A label that sets a value ("n = 200", "p = 0.5") keeps the value: the cells after it pair with the columns.
    assert labelled_row("n = 200 1.581 1.924 1.930 2.110 2.136 2.507", header) == (
        "n = 200: median = 1.581; Kaplan-Meier = 1.924; Nelson-Aalen = 1.930; Powell = 2.110; Leurgans G1 = 2.136; "
        "Leurgans G2 = 2.507"
    )
    assert labelled_row("A 1.0 2.0", "Name Training signal of the X Y") == ""  # more than 3 words for the label
    assert labelled_row("Privacy given 99 1 97", "") == ""
    assert labelled_row("Item 1 2", "Item 1 2") == ""  # the header itself


def test_r_output_pairs_its_coefficient_header_and_its_numbered_rows():
    # summary()/coeftest(): "Std. Error" and "z value" are one column each, so the four cells pair with four names.
    header = "Estimate Std. Error z value Pr(>|z|)"
    assert labelled_row("I(Income^2) 1587 5489 0.29 0.77", header) == (
        "I(Income^2): Estimate = 1587; Std. Error = 5489; z value = 0.29; Pr(>|z|) = 0.77"
    )
    # summary() and anova(): "1st Qu.", "Sum Sq", "F value" are one column each.
    header = "method Min. 1st Qu. Median Mean 3rd Qu. Max."
    assert labelled_row("randomForest 2.99 3.19 3.35 3.35 3.49 3.73", header) == (
        "randomForest: Min. = 2.99; 1st Qu. = 3.19; Median = 3.35; Mean = 3.35; 3rd Qu. = 3.49; Max. = 3.73"
    )
    assert (
        labelled_row("Residuals 28 1.2 0.04", "Df Sum Sq Mean Sq") == "Residuals: Df = 28; Sum Sq = 1.2; Mean Sq = 0.04"
    )
    # A matrix printed under the command that printed it, its rows named by number.
    header = "> coef(fmPID) (Intercept) glucose"
    assert labelled_row("5 -3.318569 0.02748038", header) == "5: (Intercept) = -3.318569; glucose = 0.02748038"
    assert labelled_row("2 4 5", header) == ""  # whole numbers only: names of values printed below, not a row
    assert labelled_row("5 -3.3 0.02", "> coef(fmPID (Intercept) glucose") == ""  # a command that never closes
    assert labelled_row("5 -3.3 0.02 0.1", header) == ""  # one cell too many for the label to be a number
    # The header under a command continued on R's "+" prompt, its rows named by a number and a word.
    header = '+ read.dbf(system.file("shapes/sids.dbf", package="maptools"))[1:5,c(5,9:14)] NAME BIR74 SID74 BIR79'
    assert labelled_row("1 Ashe 1091 1 1364", header) == "1 Ashe: BIR74 = 1091; SID74 = 1; BIR79 = 1364"


def test_a_key_row_names_the_columns_of_the_rows_below_it():
    assert key_row("dataset 10k 20k 50k 100k 200k 500k 1m")
    assert key_row("computers 1 2 5 10 20 41")
    assert not key_row("pubmed runtime (hours) .28 .43 1.03")  # decimals are values
    assert not key_row("initial # topics/word 12.2 17.0 26.8")
    assert not key_row("news runtime 24.40 11.45 4.70")  # falling
    assert not key_row("Block 1 - - - A")
    texts = [
        "dataset 10k 20k 1m",
        "pubmed runtime (hours) .28 .43 15.12",
        "documents 5 10 20",  # rising whole numbers, but inside the table under another label: values
        "Caption of the next table.",
        "computers 1 2 5",
        "runtime (hours) 3.2 4.2 4.1",
        "Table 2: Runtime for multi machine execution.",
        "Item Yes (%) No (%)",
        "Privacy given 99 1",
        "Told 88.7 11.3",
        "Asked 62.8 37.2",
    ]
    headers = column_headers(texts)
    assert headers[:3] == ["dataset 10k 20k 1m"] * 3
    assert headers[4:6] == ["computers 1 2 5"] * 2
    assert headers[3] == headers[6] == headers[7] == ""  # no rows
    assert headers[8:] == ["Item Yes (%) No (%)"] * 3  # the header above the table
    assert labelled_row(texts[1], headers[1]) == "pubmed runtime (hours): 10k = .28; 20k = .43; 1m = 15.12"


def test_a_header_line_between_rows_names_the_rows_below_it():
    texts = [
        "Table 1: Results.",
        "pred 1 2 3",
        "1 23 3 2",
        "2 6 18 1",
        "method Min. 1st Qu. Median",  # R prints a second table right below the first
        "Accuracy svm 0.58 0.61 0.62",
        "randomForest 0.41 0.43 0.45",
        "Opportunity to ask",  # a wrapped label between rows is no header: it holds a function word
        "questions 90.1 9.9 97",
    ]
    headers = column_headers(texts)
    assert headers[5] == headers[6] == "method Min. 1st Qu. Median"
    assert labelled_row(texts[6], headers[6]) == "randomForest: Min. = 0.41; 1st Qu. = 0.43; Median = 0.45"
    assert headers[8] == "method Min. 1st Qu. Median"  # still the last header: the wrapped label changed nothing


def test_a_frame_splits_into_its_caption_and_its_header():
    assert split_frame("Table 1 Overview; columns: Item Yes (%)") == ("Table 1 Overview", "Item Yes (%)")
    assert split_frame("columns: Item Yes") == ("", "Item Yes")
    assert split_frame("Table 4.") == ("Table 4.", "")


def test_the_cell_of_the_column_a_question_names():
    from evidence.text.tables import named_cell

    row, header = "Google+ (GP) undirected 23628 39242 3.3217 2771", "Dataset Type Order Size Avg Degree Max Degree"

    def cell(question: str) -> str | None:
        found = named_cell(question, row, header)
        return row[found[0] : found[1]] if found else None

    assert cell("How many nodes (order) does the Google+ dataset have?") == "23628"
    assert cell("What is the max degree of the Google+ network?") == "2771"  # "Max Degree", not "Degree" alone
    assert cell("How many nodes does the Google+ network have?") is None  # no column named
    assert cell("What are the order and size of the Google+ network?") is None  # two named: which is asked?
    assert named_cell("What is the order?", row, "Order Size") is None  # the header does not pair with the cells
    assert named_cell("Is there no edge?", "A 1 2", "Label No Yes") is None  # a function word names no column
    row = "5 -3.318569 0.02748038"  # R's matrix row, named by its number
    found = named_cell("What is the glucose coefficient in node 5?", row, "> coef(fmPID) (Intercept) glucose")
    assert found and row[found[0] : found[1]] == "0.02748038"


def test_a_table_without_a_caption_is_led_by_the_sentences_above_it():
    texts = [
        "Cribari-Neto uses his HC4 estimator giving the following result:",
        'R> coeftest(fm.ps, df = Inf, vcov = vcovHC(fm.ps, type = "HC4")) z test of coefficients:',
        "Estimate Std.",
        "Error z value Pr(>|z|)",
        "(Intercept) 833 3008 0.28 0.78",
        "Income -1834 8183 -0.22 0.82",
        "I(Income^2) 1587 5489 0.29 0.77",
        "The quadratic term is clearly non-significant.",
    ]
    leads = table_leads(texts, table_frames(texts))
    # Each row of the table is led by the 3 sentences above its header; a sentence that is no row by nothing.
    assert leads[4] == leads[6] == " ".join(texts[0:3]) and "HC4" in leads[6]
    assert leads[:4] == ["", "", "", ""] and leads[7] == ""


def test_a_captioned_table_needs_no_lead():
    texts = ["We report the results below.", "Table 2: Accuracy per dataset", "Dataset Train Test",
             "alpha 1.0 2.0", "beta 3.0 4.0", "gamma 5.0 6.0"]  # fmt: skip
    assert table_leads(texts, table_frames(texts)) == [""] * len(texts)
