"""The reader's prompt and how its reply is read back."""

from evidence.reader.prompt import Evidence, chatml, read_reply, system_message, user_message


def test_the_user_message_numbers_sentences_under_short_titles():
    message = user_message(
        "What risk of bleeding?",
        [Evidence("A  first\nsentence.", "A very long title of a paper about deep venous thrombosis in trauma"),
         Evidence("A second one.", "A very long title of a paper about deep venous thrombosis in trauma"),
         Evidence("Another paper's.", "Other")],
    )  # fmt: skip
    assert message.splitlines() == [
        "Paper: A very long title of a paper about ...",
        "[1] A first sentence.",
        "[2] A second one.",
        "Paper: Other",
        "[3] Another paper's.",
        "Question: What risk of bleeding?",
    ]


def test_the_instruction_comes_first_so_its_state_is_reused():
    prompt = chatml(system_message(), "Question: x")
    assert prompt.startswith("<|im_start|>system\n" + system_message())
    assert prompt.endswith("<|im_start|>assistant\n")


def test_replies_are_read_back():
    assert read_reply("3.9%", 5).text == "3.9%"
    reply = read_reply("[2] 'Chubby'.", 5)
    assert (reply.text, reply.sentence, reply.not_stated) == ("Chubby", 1, False)
    assert read_reply("[9] x", 5).sentence is None  # a sentence that was not given
    assert read_reply("[5]\n3.9%", 5).text == "3.9%"
    assert read_reply("Answer: et al.", 5).text == "et al."


def test_not_stated_and_polar_replies():
    for raw in ("not stated", "[0] not stated", "Not mentioned.", "unanswerable", ""):
        assert read_reply(raw, 5).not_stated, raw
    assert read_reply("Yes.", 5).polarity == "yes"
    assert read_reply("No, it does not", 5).polarity == "no"
    assert read_reply("Norway", 5).polarity is None


def test_a_table_row_is_shown_with_its_caption_and_header():
    message = user_message(
        "What share were treated with respect?",
        [Evidence("Treated with respect 97.9 2.1 97", "", "Table 1 Patient-provider relationship; columns: Item"),
         Evidence("Patients were interviewed.")],
    )  # fmt: skip
    assert message.splitlines()[:2] == [
        "[1] Treated with respect 97.9 2.1 97 (table: Table 1 Patient-provider relationship; columns: Item)",
        "[2] Patients were interviewed.",
    ]


def test_a_row_whose_header_pairs_up_with_its_cells_is_shown_with_each_cell_named():
    frame = "Table 1 Patient-provider relationship; columns: Item Yes (%) No (%) Respondents"
    row = Evidence("Treated with respect 97.9 2.1 97", "", frame)
    message = user_message("What share were treated with respect?", [row])
    assert message.splitlines()[0] == (
        "[1] Treated with respect: Yes (%) = 97.9; No (%) = 2.1; Respondents = 97 "
        "(table: Table 1 Patient-provider relationship)"
    )
    keys = Evidence("pubmed runtime (hours) .28 .43 15.12", "", "columns: dataset 10k 20k 1m")  # a key row, no caption
    assert user_message("q?", [keys]).splitlines()[0] == "[1] pubmed runtime (hours): 10k = .28; 20k = .43; 1m = 15.12"
