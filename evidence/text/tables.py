"""Tables in plain text: which lines are a table's rows (mostly cells of numbers), its caption and its header.

A PDF's text layer prints a table as one line per row ("Treated with respect 97.9 2.1 97"). The parser keeps each
row as a block of its own, so a cell can be cited with its row; a reader of a row needs the table's header ("Item
Yes (%) No (%) Respondents") and caption to know what the numbers are. Pure functions over lines of text.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

# A cell: a number (grouped, decimal, signed, a percentage, in parentheses, with a unit letter such as 10k or a
# footnote mark), or a dash standing for an empty cell.
CELL = re.compile(r"^[-+±−~<>≤≥]?\(?[$€£]?(?:\d(?:[\d,]*\d)?(?:\.\d+)?|\.\d+)%?\)?[kKmMbBx×*†‡]?$")
EMPTY_CELLS = frozenset({"-", "–", "—", "−", "n/a", "N/A", "NA", "×", "✓"})
CAPTION = re.compile(r"^(?:Table|TABLE|Tab\.)\s*[\dIVX]+\b")
ROW_SHARE = 0.3  # at least this share of a row's words are cells ...
ROW_CELLS = 2  # ... and at least this many
MIN_ROWS = 3  # consecutive rows that make a table (a line with two numbers in prose is not one)
HEADER_LINES = 2  # lines above the first row read as its header
HEADER_WORDS = 14  # a header line is short
CAPTION_REACH = 3  # lines above the header where a caption may begin
SENTENCE_END = re.compile(r"[.!?;]$")
_PROSE_WORD = re.compile(r"^[a-z]{3,}[,;:]?$")


def cells(line: str) -> int:
    """How many of a line's words are table cells."""
    return sum(1 for word in line.split() if CELL.match(word) or word in EMPTY_CELLS)


def is_row(line: str) -> bool:
    """Whether a line reads as a table row: at least ROW_CELLS cells making at least ROW_SHARE of its words."""
    words = line.split()
    found = cells(line)
    return found >= ROW_CELLS and found >= ROW_SHARE * len(words)


def _prose_like(line: str) -> bool:
    """A line of running text: long, or mostly lower-case words (a header is names and units)."""
    words = line.split()
    if len(words) > HEADER_WORDS:
        return True
    return len(words) >= 4 and sum(bool(_PROSE_WORD.match(w)) for w in words) >= 0.5 * len(words)


@dataclass(frozen=True)
class Table:
    """A table found in a run of lines: line indices of its caption, header and rows (others inside: labels)."""

    caption: list[int]
    header: list[int]
    first: int  # the first row
    last: int  # the last row (inclusive)

    @property
    def start(self) -> int:
        return min([*self.caption, *self.header, self.first])


def find_tables(lines: Sequence[str]) -> list[Table]:
    """Return the tables among a page's lines, in order: runs of MIN_ROWS or more rows (one short non-row line may
    sit between two rows: a wrapped label or a group name), with the header lines right above the first row and
    the caption above them when there is one."""
    rows = [is_row(line) for line in lines]
    tables: list[Table] = []
    i = 0
    while i < len(lines):
        if not rows[i]:
            i += 1
            continue
        last, count, j = i, 1, i + 1
        while j < len(lines):
            if rows[j]:
                last, count = j, count + 1
            elif not (lines[j] and j + 1 < len(lines) and rows[j + 1] and not _prose_like(lines[j])):
                break
            j += 1
        if count >= MIN_ROWS:
            floor = tables[-1].last + 1 if tables else 0
            tables.append(_framed(lines, rows, i, last, floor))
        i = last + 1
    return tables


def _framed(lines: Sequence[str], rows: Sequence[bool], first: int, last: int, floor: int) -> Table:
    """The table of rows first..last with its header and caption lines above (none above `floor`)."""
    reach = range(first - 1, max(floor, first - HEADER_LINES - CAPTION_REACH) - 1, -1)
    caption_at = next((k for k in reach if CAPTION.match(lines[k])), None)
    header: list[int] = []
    k = first - 1
    while k >= floor and len(header) < HEADER_LINES and k != caption_at:
        line = lines[k]
        if not line or rows[k] or SENTENCE_END.search(line) or (caption_at is None and _prose_like(line)):
            break
        header.insert(0, k)
        k -= 1
    caption: list[int] = []
    if caption_at is not None and (not header or caption_at < header[0]):
        top = header[0] if header else first
        caption = list(range(caption_at, top))
    return Table(caption, header, first, last)


def table_frames(texts: Sequence[str]) -> list[tuple[str, str]]:
    """Per sentence in text order, the (caption, header) of the table it is a row of (("", "") for a sentence that
    is no row): the header is the block right above the table's first row when it is short, no row, no caption and
    no sentence; the caption is the block above the header (or above the first row) when it names a table."""
    out = [("", "")] * len(texts)
    frame = ("", "")
    rows = [is_row(text) for text in texts]
    for i in range(len(texts)):
        if not rows[i]:
            continue
        if starts_table(rows, i):
            above = texts[i - 1] if i > 0 else ""
            fits = above and not CAPTION.match(above) and not SENTENCE_END.search(above) and not _prose_like(above)
            header = above if fits else ""
            top = i - 1 - bool(header)
            caption = texts[top] if top >= 0 and CAPTION.match(texts[top]) else ""
            frame = (caption, header)
        out[i] = frame
    return out


def starts_table(rows: Sequence[bool], i: int) -> bool:
    """Whether the row at i begins a table: the line above is no row, nor one line between two rows (a wrapped
    label, a group name: the same table)."""
    return i == 0 or not (rows[i - 1] or (i >= 2 and rows[i - 2]))


LEAD_SENTENCES = 3  # sentences above a table without a caption that say what it is


def table_leads(texts: Sequence[str], frames: Sequence[tuple[str, str]]) -> list[str]:
    """Per sentence in text order, for a row of a table with no caption above it, the text that introduces the
    table: up to LEAD_SENTENCES sentences right above its first row and header (R's console: "R> coeftest(fm.ps,
    vcov = vcovHC(fm.ps, type = "HC4")) z test of coefficients:" above "I(Income^2) 1587 5489 0.29 0.77"); ""
    for a sentence that is no row, or a row whose table has its caption (the caption says what it is). `frames`
    are the sentences' `table_frames`: a row has a frame's caption or header exactly when it is a row."""
    out = [""] * len(texts)
    rows = [is_row(text) for text in texts]
    lead = ""
    for i, (caption, header) in enumerate(frames):
        if not rows[i]:
            continue
        if starts_table(rows, i):
            top = i - bool(header)  # the table's first line: its header, else this row
            lead = "" if caption else " ".join(texts[max(0, top - LEAD_SENTENCES) : top])
        out[i] = lead
    return out


# ------------------------------------------------------------------ a row's cells named by their columns
# A reader given "pubmed runtime (hours) .28 .43 ... 15.12" and a header has to count columns to find the cell a
# question names; the same row written as "pubmed runtime (hours): 10k = .28; 20k = .43; ...; 1m = 15.12" names each
# cell. Only when the header splits into exactly as many columns as the row has cells (the row's label column
# optional): a header whose columns cannot be told apart is left as it is.

HEADER_MARK = "columns: "  # how a row's frame (reading the table's caption and header) names the header
_KEY = re.compile(r"^\d+[kKmM]?$")


def row_cells(text: str) -> tuple[str, list[str]]:
    """A row's label (its words before the trailing run of cells) and those cells."""
    words = text.split()
    first = len(words)
    while first > 0 and (CELL.match(words[first - 1]) or words[first - 1] in EMPTY_CELLS):
        first -= 1
    return " ".join(words[:first]), words[first:]


def header_columns(header: str) -> list[str]:
    """A header's column names: its words, with a bracketed unit or a lone % joined to the word before it
    ("Yes (%)") and R's two-word column names kept whole ("Estimate Std. Error t value Pr(>|t|)": four columns;
    "Min. 1st Qu. Median Mean 3rd Qu. Max.": six), after the R command that printed the table when the line begins
    with it ("> coef(fmPID) (Intercept) glucose": the columns are "(Intercept)" and "glucose")."""
    columns: list[str] = []
    for word in without_command(header.split()):
        two_words = bool(columns) and (
            (columns[-1].lower(), word.lower()) in R_COLUMNS or (word == "value" and len(columns[-1]) == 1)
        )
        if columns and (two_words or word.startswith("(") or word in {"%", "(%)"}):
            columns[-1] = f"{columns[-1]} {word}"
        else:
            columns.append(word)
    return columns


# Column names of two words in R's printed output (summary(), anova(), coeftest()); a one-letter statistic and its
# "value" ("t value", "F value") are one too.
R_COLUMNS = frozenset({
    ("std.", "error"), ("std.", "dev."), ("1st", "qu."), ("3rd", "qu."), ("sum", "sq"), ("mean", "sq"),
    ("chi", "sq"), ("resid.", "df"), ("resid.", "dev"),
})  # fmt: skip


def without_command(words: list[str]) -> list[str]:
    """A header line's words after the R console command it begins with ("> coef(fmPID)", "R> summary(fit)", or a
    call continued on R's "+" prompt: "+ read.dbf(...)[1:5, ]"): the prompt and the words up to the call's closing
    parenthesis; the words as they are when the line begins with no prompt, or the call never closes."""
    continued = len(words) > 1 and words[0] == "+" and "(" in words[1]
    if not words or not (words[0] in {">", "R>"} or continued):
        return words
    depth = 0
    for i, word in enumerate(words[1:], start=1):
        depth += word.count("(") - word.count(")")
        if depth <= 0 and ")" in word:
            return words[i + 1 :]
    return words


STUB_WORDS = 3  # the most words a header may spend naming its label column ("Training signal", "Field")


def labelled_row(text: str, header: str) -> str:
    """The row with each cell named by its column ("Treated with respect: Yes (%) = 97.9; No (%) = 2.1;
    Respondents = 97"), or "" when the header's columns and the row's cells do not pair up one to one.

    The header's first words may name the label column: one word, or up to STUB_WORDS ("Training signal CLS USR
    CITE" over "SciBERT fine-tune 82.3 85.4 86.7"), the cells then pairing with the header's last columns, each of
    which must be a name, not a number (a row of numbers taken for a header names nothing)."""
    label, pairs = paired_cells(text, header)
    if not pairs:
        return ""
    return f"{label}: " + "; ".join(f"{column} = {value}" for column, value in pairs)


def row_columns(text: str, header: str) -> list[str]:
    """The column name of each of the row's cells, as `labelled_row` pairs them; [] when they do not pair."""
    return [column for column, _ in paired_cells(text, header)[1]]


def paired_cells(text: str, header: str) -> tuple[str, list[tuple[str, str]]]:
    """The row's label and its (column, cell) pairs, the cells paired with the header's last columns; ("", [])
    when they do not pair. A label that sets a value keeps it ("n = 200 1.581 1.924"). A row of R's printed matrix
    is named by a number ("5 -3.318569 0.02748038" under "(Intercept) glucose"): a first cell that is a whole
    number, one more than the columns, is the label, unless every cell is one ("2 4 5": the names of the values
    printed below it)."""
    label, values = row_cells(text)
    columns = joined_repeats(header_columns(header))
    if label.endswith("=") and len(values) > ROW_CELLS:  # "n = 200 1.581 1.924 ...": the label sets a value
        label, values = f"{label} {values[0]}", values[1:]
    if not label and len(values) == len(columns) + 1 and values[0].isdigit() and not all(v.isdigit() for v in values):
        label, values = values[0], values[1:]
    if len(values) < ROW_CELLS or not label or " ".join(text.split()) == " ".join(header.split()):
        return "", []
    extra = len(columns) - len(values)
    if extra == 1 or (1 < extra <= STUB_WORDS and all(re.search(r"[^\W\d_]", c) for c in columns[extra:])):
        columns = columns[extra:]  # the first words name the row labels
    return (label, list(zip(columns, values, strict=True))) if len(columns) == len(values) else ("", [])


_FUNCTION_COLUMNS = {"no", "not", "and", "or", "of", "in", "on", "the", "to", "for", "with", "by", "at", "is"}


def named_cell(question: str, text: str, header: str) -> tuple[int, int] | None:
    """The [start, end) in the row `text` of the cell whose column the question names ("how many nodes (order)"
    over "Order Size Avg Degree", "what CITE score"): one column named as a whole word (case aside, 2 characters
    at least, a longer name winning over one inside it), else None."""
    columns = row_columns(text, header)
    named = [
        i for i, column in enumerate(columns)
        if len(column) >= 2 and column.lower() not in _FUNCTION_COLUMNS
        and re.search(rf"(?<![\w-]){re.escape(column)}(?![\w-])", question, re.I)
    ]  # fmt: skip
    named = [i for i in named if not any(j != i and columns[i].lower() in columns[j].lower() for j in named)]
    if len(named) != 1:
        return None
    cells = [m for m in re.finditer(r"\S+", text)][-len(columns) :]
    cell = cells[named[0]]
    return cell.start(), cell.end()


def joined_repeats(columns: list[str]) -> list[str]:
    """Column names of two words told by a repeated word: "Avg Degree Max Degree" -> "Avg Degree", "Max Degree"
    (joined to the word before it when the header ends with it), "Leurgans Ĝ Leurgans G̃" -> "Leurgans Ĝ",
    "Leurgans G̃" (else to the word after it)."""
    counts = {c: columns.count(c) for c in columns}
    repeated = {c for c, n in counts.items() if n > 1 and re.search(r"[^\W\d_]", c)}
    if not repeated or len(repeated) > 1:
        return columns
    word = repeated.pop()
    out: list[str] = []
    if columns[-1] == word:
        for column in columns:
            if column == word and out:
                out[-1] = f"{out[-1]} {column}"
            else:
                out.append(column)
        return out
    skip = False
    for i, column in enumerate(columns):
        if skip:
            skip = False
            continue
        if column == word and i + 1 < len(columns):
            out.append(f"{column} {columns[i + 1]}")
            skip = True
        else:
            out.append(column)
    return out


def key_row(text: str) -> bool:
    """Whether a row names the table's columns rather than holding values: a label without digits and cells that
    are rising whole numbers ("dataset 10k 20k 50k 1m", "computers 1 2 5 10")."""
    label, values = row_cells(text)
    if len(values) < ROW_CELLS or not label or any(ch.isdigit() for ch in label):
        return False
    if not all(_KEY.match(v) for v in values):
        return False
    scale = {"k": 1e3, "m": 1e6}
    numbers = [float(v.rstrip("kKmM")) * scale.get(v[-1].lower(), 1.0) for v in values]
    return all(b > a for a, b in itertools.pairwise(numbers))


def column_headers(texts: Sequence[str]) -> list[str]:
    """Per sentence in text order, the header its cells are named by: the table's header above its first row
    (as `table_frames` finds it), else the nearest key row above it in the same table (`key_row`); "" for a
    sentence that is no row. A key row counts only as its table's first row, or repeating that row's label. A
    header line between two rows (`inner_header`: R prints one table right below another) names the rows below
    it."""
    frames = table_frames(texts)
    out = [""] * len(texts)
    keys = inner = ""
    for i, text in enumerate(texts):
        if not is_row(text):
            if not (i + 1 < len(texts) and i >= 1 and is_row(texts[i - 1]) and is_row(texts[i + 1])):
                keys = inner = ""  # the table ended (one line between two rows stays inside it)
            elif inner_header(text, texts[i + 1]):
                inner = text  # the header of a table printed right below the last ("method Min. 1st Qu. ...")
            continue
        first = i == 0 or not is_row(texts[i - 1])
        if key_row(text) and (first or row_cells(text)[0] == row_cells(keys)[0]):
            keys = text  # the table's first row, or one repeating its label ("computers ..." over each block)
        out[i] = inner or frames[i][1] or keys
    return out


def inner_header(line: str, below: str) -> bool:
    """Whether a line between two rows is the header of the rows below it: its columns pair with the next row's
    cells and none is a function word (a wrapped label, "Opportunity to ask", is no header)."""
    columns = row_columns(below, line)
    return bool(columns) and not any(word.lower() in _FUNCTION_COLUMNS for word in line.split())


def split_frame(frame: str) -> tuple[str, str]:
    """A row's frame ("Table 1 ...; columns: Item Yes (%) No (%)") split into its caption and its header."""
    at = frame.rfind(HEADER_MARK)
    if at < 0:
        return frame.strip(), ""
    return frame[:at].strip().rstrip(";").strip(), frame[at + len(HEADER_MARK) :].strip()


# A figure's axis prints its tick labels as a run of evenly spaced numbers ("−0.5 0.5 1.5 2.5", "0e+00 2e−15 4e−15
# 6e−15"), which a PDF's text layer keeps among the figure's words: no such number is a value the paper states.
_TICK = re.compile(r"(?<![\w.])[-−–+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-−+]?\d+)?(?![\w.])")
AXIS_TICKS = 4  # evenly spaced numbers in a row that make an axis


def in_axis_ticks(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is one of AXIS_TICKS or more numbers standing in a row (nothing but spaces between
    them) at equal steps: a figure's tick labels ("16 18 20 22 24"), not a value."""
    numbers = list(_TICK.finditer(text))
    runs: list[list[re.Match[str]]] = []
    for number in numbers:
        if runs and not text[runs[-1][-1].end() : number.start()].strip():
            runs[-1].append(number)
        else:
            runs.append([number])
    for run in runs:
        inside = [i for i, number in enumerate(run) if number.start() < end and start < number.end()]
        if not inside or len(run) < AXIS_TICKS:
            continue
        values = [float(n.group().translate(_MINUS)) for n in run]
        for first in range(inside[0] + 1):  # the longest stretch of equal steps from each number up to the answer
            last = first + 1
            step = values[last] - values[first] if last < len(run) else 0.0
            while step and last + 1 < len(run) and math.isclose(values[last + 1] - values[last], step, rel_tol=1e-6):
                last += 1
            if last - first + 1 >= AXIS_TICKS and inside[-1] <= last:
                return True
    return False


_MINUS = str.maketrans({"−": "-", "–": "-"})
