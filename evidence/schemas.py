"""Request and response shapes of the JSON API (django-ninja / pydantic)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from ninja import Field, Schema
from pydantic import AfterValidator, ConfigDict, model_validator

from .agent import SYSTEM_NAMES
from .models import MAX_SCOPE_DOCUMENTS, Run
from .retrieval import SEARCHERS
from .run_state import RunConfig, RunOptions

MAX_ID = 2**63 - 1  # Postgres bigint: a larger id can only be a 404, never a database error


def _storable(value: str) -> str:
    # Postgres text holds neither NUL nor lone surrogates; refusing them here keeps them from becoming 500s.
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError("must be valid Unicode text") from error
    return value


# The schema says it too ("not" a NUL), so generated clients and fuzzers know what the validator refuses.
NO_NUL = {"not": {"pattern": "\u0000"}}
Text = Annotated[str, AfterValidator(_storable), Field(json_schema_extra=NO_NUL)]
System = Literal[SYSTEM_NAMES]  # type: ignore[valid-type]
Searcher = Literal[SEARCHERS]  # type: ignore[valid-type]
RunStatus = Literal[tuple(Run.Status.values)]  # type: ignore[valid-type]
ExportFormat = Literal["markdown", "bibtex", "csl-json"]  # what /api/runs/{id}/export writes (answer_formats.FORMATS)


class BodyIn(Schema):
    """A request body: a JSON object of the documented fields only, never an array, a string or null."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def an_object(cls, data: Any) -> Any:
        # ninja hands a body's fields an attribute getter over whatever JSON came: without this an array such
        # as [null, null] would pass as "every field left at its default".
        inner = getattr(data, "_obj", data)
        if not isinstance(inner, dict):
            raise ValueError("the request body must be a JSON object")
        return data


class Error(Schema):
    detail: str


class ValidationErrorOut(Schema):
    """A 422: the request did not match the operation's parameters or body (one entry per problem)."""

    detail: list[dict[str, Any]]


class CollectionIn(BodyIn):
    name: Text = Field(..., min_length=1, max_length=200, pattern=r"\S")
    description: Text = Field("", max_length=5000)


class PreparedOut(Schema):
    ready: int = Field(description="sentences and paragraphs whose vectors System 1 reads are computed")
    total: int
    done: bool = Field(description="ready for questions: every paper is prepared for reading")


class CollectionOut(Schema):
    id: int
    name: str
    description: str
    documents: int
    created_at: datetime
    prepared: PreparedOut | None = Field(
        None, description="one collection only: how far its papers are prepared for reading in the background"
    )


class FileOut(Schema):
    id: int
    name: str  # a zip member is named "archive.zip/member"
    archive_id: int | None = Field(None, description="the zip this file was unpacked from, if any")
    size: int
    status: str = Field(description="queued, parsing, embedding, done, failed, or unpacked (a zip, see its members)")
    error: str = Field(description="one plain sentence naming the file and what to do; empty unless failed")
    documents_added: int
    passages: int
    duplicates: list[str]
    retryable: bool = Field(
        description="a failed file another try can mend (a time limit, a lost worker): POST its retry; false "
        "for a file that fails the same way every time (empty, damaged, unsupported): fix it and upload it again"
    )
    note: str = Field(
        "", description="a library file read, or a web snapshot skipped beside its entry's PDF; empty otherwise"
    )


class MissingEntryOut(Schema):
    key: str
    title: str
    reason: str = Field(description="why no document took this entry, and what to do")


class LibraryOut(Schema):
    file: str = Field(description="the BibTeX or CSL-JSON file")
    entries: int
    matched: int = Field(description="entries a document of the collection took (title, authors, year, venue, DOI)")
    without_document: list[MissingEntryOut] = Field(description="every entry no document took, never dropped")
    unreadable: list[str] = Field(description="entries of the file that could not be read")


class UploadOut(Schema):
    id: int
    collection_id: int
    status: str = Field(description="queued, running, done (every file ingested), partial (some failed) or failed")
    files_total: int = Field(description="files to ingest, counting each member of a zip (not the zip itself)")
    files_done: int = Field(description="files that ended, ingested or failed")
    files_failed: int
    documents_added: int
    duplicates: int
    passages_total: int
    passages_embedded: int
    created_at: datetime
    finished_at: datetime | None
    files: list[FileOut]
    libraries: list[LibraryOut] = Field(description="the reference libraries in the upload, entry by entry")


class DocumentOut(Schema):
    id: int
    collection_id: int
    docid: str
    title: str
    source_name: str
    source_format: str
    length: int
    pages: list[list[int]]
    metadata: dict[str, Any]
    created_at: datetime


class DocumentText(Schema):
    id: int
    docid: str
    length: int
    start: int
    end: int
    text: str


class PassageOut(Schema):
    ordinal: int
    start: int
    end: int
    text: str


class SpanOut(Schema):
    id: int
    run_id: int | None
    document_id: int
    docid: str
    start: int
    end: int
    quote: str
    page: int | None
    probability: float | None
    delivered: bool
    matches_source: bool


class RunIn(BodyIn):
    collection_id: int = Field(..., ge=1, le=MAX_ID)
    question: Text = Field(..., min_length=1, max_length=2000, pattern=r"\S")
    system: System = "dual"
    task: Literal["qa", "ranking"] = "qa"
    searcher: Searcher = "hybrid"
    documents: list[Annotated[Text, Field(min_length=1, max_length=200)]] = Field(
        default_factory=list,
        max_length=MAX_SCOPE_DOCUMENTS,
        description="Limit the run to these documents of the collection (their docids); a question about one "
        "paper reads that paper's paragraphs by section.",
    )
    options: RunOptions | None = Field(None, description="optional: units read per search, cited spans, judge")


class FollowUpIn(BodyIn):
    question: Text = Field(..., min_length=1, max_length=2000, pattern=r"\S")
    options: RunOptions | None = Field(None, description="optional: change units read, cited spans or judge")


class RunOut(Schema):
    id: int
    collection_id: int
    question: str
    task: str
    system: str
    config: RunConfig
    status: str
    error: str
    budget_s: float
    spend_cap_usd: float
    spent_usd: float
    calls: int
    last_seq: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    elapsed_s: float | None
    follows: int | None = Field(None, description="the run this one follows up, in a thread of questions")


class EventOut(Schema):
    seq: int
    kind: str
    payload: dict[str, Any]
    created_at: datetime


class EventsOut(Schema):
    run_id: int
    status: str
    finished: bool
    last_seq: int
    events: list[EventOut]


class CitationOut(Schema):
    answer_part: int
    marker: str
    span: SpanOut


class AnswerOut(Schema):
    run_id: int
    status: str = Field(
        description="the run's end status: answered, not_found (the collection does not answer the question), "
        "round_cap, no_new_passages, deadline, budget, failed, cancelled; queued or running before it ends"
    )
    finished: bool
    explanation: str = Field(description="the cited sentences, whole, in reading order, each followed by [docid]")
    exact_answer: str = Field(
        description="the short answer; 'No short answer found' when none is confident enough to show, "
        "'Not found in this collection' when the collection does not answer"
    )
    confidence: float | None = Field(description="the calibrated probability that the short answer is right")
    outcome: Literal["short_answer", "no_short_answer", "not_found", "none"] = Field(
        description="short_answer: shown; no_short_answer: the evidence without a guess (below the threshold); "
        "not_found: the collection does not answer; none: no answer (yet)"
    )
    highlight: list[int] | None = Field(
        None,
        description="[start, end) of the short answer inside the explanation, when one is shown; for a yes/no "
        "verdict, the sentence it rests on",
    )
    answer: dict[str, Any]
    citations: list[CitationOut]


class EvaluationOut(Schema):
    id: int
    benchmark: str
    system: str
    collection_id: int | None
    config: dict[str, Any]
    status: str
    summary: dict[str, Any]
    created_at: datetime
    finished_at: datetime | None


class EvaluationItemOut(Schema):
    qid: str
    run_id: int | None
    metrics: dict[str, Any]


class EvaluationDetail(EvaluationOut):
    items: list[EvaluationItemOut]


class CompareSide(Schema):
    run_id: int
    status: str
    system: str
    question: str
    exact_answer: str
    spent_usd: float
    calls: int
    elapsed_s: float | None
    events: int
    funnel: dict[str, int]


class CitationKey(Schema):
    docid: str
    start: int
    end: int


class CompareOut(Schema):
    a: CompareSide
    b: CompareSide
    shared: list[CitationKey]
    only_a: list[CitationKey]
    only_b: list[CitationKey]
    difference: dict[str, float | None]


def page_of(item: type[Schema]) -> type[Schema]:
    """Return the paged-list schema of an item schema ({count, limit, offset, items})."""
    return type(
        f"{item.__name__}Page",
        (Schema,),
        {"__annotations__": {"count": int, "limit": int, "offset": int, "items": list[item]}},
    )


CollectionPage = page_of(CollectionOut)
DocumentPage = page_of(DocumentOut)
PassagePage = page_of(PassageOut)
SpanPage = page_of(SpanOut)
RunPage = page_of(RunOut)
UploadPage = page_of(UploadOut)
EvaluationPage = page_of(EvaluationOut)


# What any operation can answer besides its own statuses: a malformed request (400), no or a bad key (401), an
# unknown or another user's object (404), parameters or a body that do not validate (422, FastAPI-style detail
# list), the rate limit (429, Retry-After) and a database that is restarting (503, Retry-After).
ERRORS: dict[int, Any] = {
    400: Error,
    401: Error,
    404: Error,
    422: ValidationErrorOut,
    429: Error,
    503: Error,
}
UNSAFE = {**ERRORS, 403: Error}  # a session's POST without its CSRF token
