"""Understanding text, below the judge, the answer layer and the agent that all read questions and sentences:
`terms` (the analysed terms every scorer compares), `question` (what a question asks for: its kind, the unit or
noun it wants, negation), `question_plan` (a question split into sub-questions, queries, key phrases and clues, and
read in the light of a thread) and `sentence_spans` (a text split into sentences at exact offsets)."""

from .. import face

# Loaded with the face: the function shares its module's name, and a module, once imported, would stand in its
# place as the package's attribute.
from .terms import terms as terms

# The room's face: the names other rooms import from it (never from one of its modules: tested), each with the
# module that holds it, and the modules they import by name.
FACE = {
    "HEADER_MARK": "tables",
    "Plan": "question_plan",
    "QUESTION_WORDS": "question_plan",
    "Table": "tables",
    "analyse": "question",
    "column_headers": "tables",
    "find_tables": "tables",
    "in_axis_ticks": "tables",
    "is_row": "tables",
    "labelled_row": "tables",
    "make_plan": "question_plan",
    "missing_names": "question",
    "named_cell": "tables",
    "refine_query": "question_plan",
    "split_frame": "tables",
    "split_sentences": "sentence_spans",
    "table_frames": "tables",
    "table_leads": "tables",
}
__getattr__ = face(__name__, FACE)
