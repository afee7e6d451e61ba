"""The reader: a local language model (or an endpoint) that gives the short answer from the best evidence."""

from .reading import Reading, read
from .runtime import ReaderStatus, status

__all__ = ["ReaderStatus", "Reading", "read", "status"]
