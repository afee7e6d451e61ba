"""The domain model (SPEC section 2): collections of documents, research runs and their evidence, one module per
area; everything is importable from here."""

from .access import ApiKey, PiseriniBackend
from .documents import (
    EMBEDDING_DIM,
    MAX_SCOPE_DOCUMENTS,
    Collection,
    Document,
    IndexSegment,
    Passage,
    Region,
    SourceFile,
    default_bm25_params,
)
from .evaluations import Evaluation, EvaluationItem
from .ingest import IngestFile, IngestFileData, IngestJob
from .runs import Citation, Judgment, ModelCall, Run, RunEvent, Search, Span

__all__ = [
    "EMBEDDING_DIM",
    "MAX_SCOPE_DOCUMENTS",
    "ApiKey",
    "Citation",
    "Collection",
    "Document",
    "Evaluation",
    "EvaluationItem",
    "IndexSegment",
    "IngestFile",
    "IngestFileData",
    "IngestJob",
    "Judgment",
    "ModelCall",
    "Passage",
    "PiseriniBackend",
    "Region",
    "Run",
    "RunEvent",
    "Search",
    "SourceFile",
    "Span",
    "default_bm25_params",
]
