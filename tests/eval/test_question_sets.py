"""Question sets read from an upload: the realqa JSON and a CSV, every bad row named in a sentence."""

from __future__ import annotations

import json

import pytest

from evidence.eval.question_sets import MAX_BYTES, QuestionSetError, digest, read_question_set


def problems_of(name: str, data: bytes, **kwargs) -> list[str]:
    with pytest.raises(QuestionSetError) as raised:
        read_question_set(name, data, **kwargs)
    return raised.value.problems


def test_it_reads_the_realqa_json():
    quote = {"docid": "N18-3011", "quote": "This labeling process succeeds for 76% of the documents."}
    nothing = {"qid": "d02", "question": "What dropout?", "answers": ["unanswerable"], "type": "unanswerable"}
    raw = [
        {"qid": "d01", "question": " How often? ", "answers": ["76%", "76"], "type": "number", "paper_title": "x",
         "evidence": [quote]},
        {**nothing, "evidence": []},
    ]  # fmt: skip
    items = read_question_set("dev.json", json.dumps(raw).encode())
    assert items == [
        {"qid": "d01", "question": "How often?", "answers": ["76%", "76"], "type": "number", "evidence": [quote]},
        {**nothing, "evidence": []},
    ]


def test_it_reads_the_shipped_question_sets_unchanged(shared_data):
    for name in ("dev.json", "dev2.json"):
        path = shared_data / "realqa" / name
        raw = json.loads(path.read_text())
        items = read_question_set(name, path.read_bytes(), limited=False)
        assert [(i["qid"], i["answers"], i["evidence"]) for i in items] == [
            (r["qid"], r["answers"], r["evidence"]) for r in raw
        ]


def test_it_reads_a_csv_with_answers_split_on_bars_or_semicolons():
    data = (
        "\ufeffQuestion,Answers,Evidence quote\n"
        'How many triples?,684K | 684000,"We construct 684K training triples, in all"\n'
        "\n"
        "Which library?,PDFBox; Apache PDFBox,\n"
        "What dropout?,unanswerable,\n"
    ).encode()
    items = read_question_set("set.csv", data)
    assert [i["qid"] for i in items] == ["q1", "q2", "q3"]
    assert items[0]["answers"] == ["684K", "684000"]
    assert items[0]["evidence"] == [{"docid": "", "quote": "We construct 684K training triples, in all"}]
    assert items[1]["answers"] == ["PDFBox", "Apache PDFBox"] and items[1]["evidence"] == []
    assert items[2]["type"] == "unanswerable"  # its only answer says so


def test_a_csv_names_each_bad_row_as_a_spreadsheet_numbers_it():
    data = b"question,answers,type\nGood one?,yes,yes_no\n,42,\nNo answer?,,\nTypo?,x,nmber\n"
    assert problems_of("set.csv", data) == [
        "Row 3 has no question.",
        "Row 4 has no answers: give at least one (for a question the papers cannot answer, the answer 'unanswerable').",
        "Row 5 has the type 'nmber': use one of number, named, yes_no, purpose, table, unanswerable, or leave it "
        "empty.",
    ]


def test_a_csv_without_the_needed_columns_says_which():
    assert problems_of("set.csv", b"q,a\nWhy?,because\n") == [
        "The CSV's first row has no 'question' or 'answers' column: name the columns question, answers and "
        "(optionally) evidence; it has 'q', 'a'."
    ]


def test_bad_json_questions_are_named_by_number():
    raw = [
        {"question": "Fine?", "answers": ["yes"]},
        "just a string",
        {"question": "Quote?", "answers": ["x"], "evidence": [{"docid": "d"}]},
        {"qid": "a", "question": "One", "answers": "1"},
        {"qid": "a", "question": "Two", "answers": ["2"]},
        {"question": "Nothing?", "answers": ["unanswerable"], "type": "unanswerable", "evidence": ["a quote"]},
    ]
    assert problems_of("set.json", json.dumps(raw).encode()) == [
        "Question 2 is not an object with a question and its answers.",
        "Question 3's evidence 1 has no quote: give the passage that states the answer, verbatim.",
        "Question 5 has the id 'a', already used by Question 4: give each question its own.",
        "Question 6 is unanswerable but gives evidence: drop the evidence or the type.",
    ]


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        ("set.json", b"[{", "The file is not valid JSON: Expecting property name enclosed in double quotes at line 1."),
        ("set.json", b'{"question": "x"}',
         "The JSON must be a list of questions, each an object with a question and answers."),
        ("set.json", b"[]", "The file holds no questions."),
        ("set.csv", b"question,answers\n", "The file holds no questions."),
        ("set.csv", b"", "The CSV is empty: its first row must name the columns (question, answers)."),
        ("set.csv", b"question,answers\n\xff\xfe,x\n",
         "The file is not UTF-8 text (byte 18 cannot be read): save it as UTF-8 and upload it again."),
    ],
)  # fmt: skip
def test_a_file_that_is_no_question_set_says_why(name, data, expected):
    assert problems_of(name, data) == [expected]


def test_it_limits_an_uploads_size_and_questions_but_not_the_command_lines():
    big = b"question,answers\n" + b"Why?,because\n" * (MAX_BYTES // 10)
    assert problems_of("set.csv", big)[0].startswith("The file is 1")
    many = b"question,answers\n" + b"".join(b"Q%d?,a\n" % n for n in range(201))
    assert problems_of("set.csv", many) == [
        "The file holds 201 questions, over the limit of 200: split it into smaller sets."
    ]
    assert len(read_question_set("set.csv", many, limited=False)) == 201


def test_it_shows_twenty_problems_and_counts_the_rest():
    data = b"question,answers\n" + b",x\n" * 25
    problems = problems_of("set.csv", data)
    assert len(problems) == 21 and problems[-1] == "… and 5 more problems like these."


def test_a_file_without_a_known_suffix_is_read_by_its_first_character():
    assert read_question_set("questions", b'[{"question": "Q?", "answers": ["a"]}]')[0]["qid"] == "q1"
    assert read_question_set("questions", b"question,answers\nQ?,a\n")[0]["answers"] == ["a"]


def test_the_digest_tells_two_sets_apart():
    one = read_question_set("a.csv", b"question,answers\nQ?,a\n")
    two = read_question_set("a.csv", b"question,answers\nQ?,b\n")
    assert digest(one) != digest(two) and digest(one) == digest(list(one))
