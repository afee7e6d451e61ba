"""The research agent, a stack of rooms each entered through its face: llm < core < readers < planning < systems <
research.py (a claimed run to its one end)."""

from .. import face

# The room's face: the names other rooms import from it (never from one of its modules: tested), each with the
# module that holds it, and the modules they import by name.
FACE = {
    "SYSTEM_NAMES": "research",
    "run_claimed": "research",
}
__getattr__ = face(__name__, FACE)
