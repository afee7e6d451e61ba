"""The systems a run can be: dual, the LLM baselines, pi-serini, and the registry naming them; background mining.
Above planning/; research.py is the one module above it."""

from .background import mine_locally
from .registry import SYSTEM_NAMES, SYSTEMS

__all__ = [
    "SYSTEMS",
    "SYSTEM_NAMES",
    "mine_locally",
]
