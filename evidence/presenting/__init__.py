"""Presenters: a run's stored answer and citations as page pieces, API payloads and exports (below views/, api/
and mcp/, which each call these instead of one another)."""

from .. import face

# The room's face: the names other rooms import from it (never from one of its modules: tested), each with the
# module that holds it, and the modules they import by name.
FACE = {
    "AnswerView": "answers",
    "FORMATS": "answer_formats",
    "answer_pieces": "answers",
    "answer_view": "answers",
    "confidence_words": "answers",
    "export_response": "exports",
    "run_citations": "answers",
    "short_answer_view": "answers",
}
MODULES = ("answers",)
__getattr__ = face(__name__, FACE, MODULES)
