"""Page views, one module per journey."""

from .. import face

# The room's face: the names other rooms import from it (never from one of its modules: tested), each with the
# module that holds it, and the modules they import by name.
FACE = {
    "status_words": "statuses",
}
MODULES = (
    "ask",
    "audit",
    "collections",
    "compare",
    "downloads",
    "evaluations",
    "health",
    "home",
    "keys",
    "runs",
    "stream",
)
__getattr__ = face(__name__, FACE, MODULES)
