"""The domain model (SPEC section 2): collections of documents, research runs and their evidence."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from pgvector.django import HnswIndex, VectorField

EMBEDDING_DIM = 384


def default_bm25_params() -> dict[str, dict[str, float]]:
    # SPEC 3: document level k1=25, b=1 (long web documents); passage level k1=0.9, b=0.4.
    return {"document": {"k1": 25.0, "b": 1.0}, "passage": {"k1": 0.9, "b": 0.4}}


class Collection(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="collections")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    analyzer = models.CharField(max_length=20, default="english")
    bm25_params = models.JSONField(default=default_bm25_params)
    # The model its passage and sentence vectors were made with (evidence.ingest.embedding.MODEL_ID for new ones);
    # `manage.py reembed` brings a collection made with an older model up to date.
    embedding_model = models.CharField(max_length=40, default="minilm-l6-v2-fdq8")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="collection_unique_name_per_owner")]
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def scope_docids(self, docids: list[str]) -> list[str]:
        """Return the given document ids, deduplicated in order, or raise ValueError naming those not in here."""
        wanted = list(dict.fromkeys(d.strip() for d in docids if d.strip()))
        if len(wanted) > MAX_SCOPE_DOCUMENTS:
            raise ValueError(f"A run can be limited to at most {MAX_SCOPE_DOCUMENTS} documents, got {len(wanted)}.")
        known = set(self.documents.filter(docid__in=wanted).values_list("docid", flat=True))
        missing = [d for d in wanted if d not in known]
        if missing:
            shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
            raise ValueError(f"Not documents of collection {self.name!r}: {shown}.")
        return wanted


MAX_SCOPE_DOCUMENTS = 50  # a run limited to a few documents (a question about one paper)


class Document(models.Model):
    """A source document; `text` is canonical and immutable: every offset in the system indexes it."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="documents")
    docid = models.CharField(max_length=200)
    title = models.TextField()
    source_name = models.CharField(max_length=500)
    source_format = models.CharField(max_length=20)
    sha256 = models.CharField(max_length=64)
    text = models.TextField()
    pages = models.JSONField(default=list, blank=True)  # [[page_number, start, end], ...]
    metadata = models.JSONField(default=dict, blank=True)
    # The index version whose segment holds this document (None: not in the BM25 index yet).
    index_version = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["collection", "docid"], name="document_unique_docid"),
            models.UniqueConstraint(fields=["collection", "sha256"], name="document_unique_sha256"),
        ]
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.docid}: {self.title[:60]}"

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None:
            stored = Document.objects.filter(pk=self.pk).values_list("text", flat=True).first()
            if stored is not None and stored != self.text:
                raise ValidationError("A document's canonical text is immutable: ingest a new document instead.")
        super().save(*args, **kwargs)

    def page_at(self, offset: int) -> int | None:
        """Return the 1-based page holding this character offset, if the document has pages."""
        for number, start, end in self.pages:
            if start <= offset < end:
                return int(number)
        return None


class SourceFile(models.Model):
    """The original bytes of a paged document (a PDF) and the map from its canonical offsets to the file's characters.

    Kept in Postgres beside the document rather than on a worker's disk: any web process can render a page,
    the bytes live and die with the document in one transaction, and a zip member (no file of its own) has them too.
    """

    document = models.OneToOneField(Document, on_delete=models.CASCADE, related_name="source_file", primary_key=True)
    data = models.BinaryField()
    sha256 = models.CharField(max_length=64)  # of the bytes: names the cached page images
    # {"page number": [[canonical offset, pdfium char index, length], ...]}: see ingest/parsers/pdf_offsets.py
    char_map = models.JSONField(default=dict)


class IndexSegment(models.Model):
    """One appended piece of a collection's BM25 index (both levels), the canonical copy every worker reads.

    Ingest appends a segment per file under the collection's row lock, so versions form one sequence per
    collection however many workers ingest; small segments are merged into bigger ones (evidence/retrieval/
    index_store.py). A segment covers versions first_version..version; the index version is the largest.
    """

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="index_segments")
    first_version = models.PositiveIntegerField()
    version = models.PositiveIntegerField()
    documents = models.PositiveIntegerField()
    data = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["collection", "version"], name="index_segment_unique_version")]


class Passage(models.Model):
    """A retrieval unit: the document title plus at most 250 words of body, `document.text[start:end]`."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="passages")
    ordinal = models.PositiveIntegerField()
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    embedding = VectorField(dimensions=EMBEDDING_DIM, null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["document", "ordinal"], name="passage_unique_ordinal"),
            models.CheckConstraint(condition=models.Q(end__gt=models.F("start")), name="passage_nonempty"),
        ]
        indexes = [
            HnswIndex(
                name="passage_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            )
        ]
        ordering = ["document_id", "ordinal"]

    @property
    def body(self) -> str:
        return self.document.text[self.start : self.end]


class Region(models.Model):
    """A judge region: a section heading, paragraph or sentence, with its exact offsets."""

    class Kind(models.TextChoices):
        SECTION = "section"
        PARAGRAPH = "paragraph"
        SENTENCE = "sentence"

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="regions")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    ordinal = models.PositiveIntegerField()  # order within (document, kind)
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    label = models.TextField(blank=True)
    page = models.PositiveIntegerField(null=True, blank=True)
    embedding = VectorField(dimensions=EMBEDDING_DIM, null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["document", "kind", "ordinal"], name="region_unique_ordinal"),
        ]
        ordering = ["document_id", "kind", "ordinal"]


class IngestJob(models.Model):
    """One upload batch: its files are parsed and indexed by Celery tasks that record progress here."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"  # every file ingested (duplicates included)
        PARTIAL = "partial"  # some files ingested, some failed
        FAILED = "failed"  # every file failed

    FINISHED = (Status.DONE, Status.PARTIAL, Status.FAILED)

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ingest_jobs")
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="ingest_jobs")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    files_total = models.PositiveIntegerField(default=0)
    files_done = models.PositiveIntegerField(default=0)  # files that ended, ingested or failed
    files_failed = models.PositiveIntegerField(default=0)
    documents_added = models.PositiveIntegerField(default=0)
    duplicates = models.PositiveIntegerField(default=0)
    passages_total = models.PositiveIntegerField(default=0)
    passages_embedded = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]


class IngestFile(models.Model):
    """One uploaded file, or one member of an uploaded zip (then `archive` is the zip's row)."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        PARSING = "parsing"
        EMBEDDING = "embedding"
        DONE = "done"
        FAILED = "failed"
        UNPACKED = "unpacked"  # a zip whose members became files of their own

    job = models.ForeignKey(IngestJob, on_delete=models.CASCADE, related_name="files")
    archive = models.ForeignKey("self", on_delete=models.CASCADE, null=True, blank=True, related_name="members")
    name = models.CharField(max_length=500)
    size = models.PositiveBigIntegerField(default=0)
    stored_path = models.CharField(max_length=1000, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    error = models.TextField(blank=True)
    # A failure another try can mend (a time limit, a lost worker, an internal error); False for a file that is
    # empty, damaged or in no supported format, which fails the same way every time.
    retryable = models.BooleanField(default=True)
    documents_added = models.PositiveIntegerField(default=0)
    duplicates = models.JSONField(default=list, blank=True)  # names of documents skipped as duplicates
    passages = models.PositiveIntegerField(default=0)
    attempts = models.PositiveSmallIntegerField(default=0)  # claims by a worker; a lost worker's file is taken again
    sends = models.PositiveSmallIntegerField(default=0)  # times its task was queued (the reaper queues a lost one)
    sent_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)  # moved while it is parsed and embedded: its heartbeat
    # A library file (BibTeX, CSL-JSON): {"entries", "tied" (file name -> entry key), "unreadable"}; a web snapshot
    # skipped beside its entry's PDF: {"skipped": sentence}. See ingest/library_import.py.
    library = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["id"]


class IngestFileData(models.Model):
    """The uploaded bytes of one ingest file, in Postgres so that a worker on any machine can read them.

    A table of its own keeps IngestFile rows light for the pages that list thousands of them.
    """

    file = models.OneToOneField(IngestFile, on_delete=models.CASCADE, related_name="stored", primary_key=True)
    data = models.BinaryField()


class Run(models.Model):
    """One research run: a question over a collection, its budget, spend, end status and answer."""

    class Task(models.TextChoices):
        QA = "qa"
        RANKING = "ranking"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        ANSWERED = "answered"
        NOT_FOUND = "not_found", "Not found"  # the collection does not answer the question: closest evidence shown
        ROUND_CAP = "round_cap"
        NO_NEW_PASSAGES = "no_new_passages"
        DEADLINE = "deadline"
        BUDGET = "budget"
        FAILED = "failed"
        CANCELLED = "cancelled"

    ACTIVE_STATUSES = (Status.QUEUED, Status.RUNNING)

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="runs")
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="runs")
    question = models.TextField()
    task = models.CharField(max_length=10, choices=Task.choices, default=Task.QA)
    system = models.CharField(max_length=20, default="dual")
    config = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED)
    error = models.TextField(blank=True)
    budget_s = models.FloatField(default=300.0)
    spend_cap_usd = models.FloatField(default=5.0)
    spent_usd = models.FloatField(default=0.0)
    calls = models.PositiveIntegerField(default=0)
    answer = models.JSONField(default=dict, blank=True)  # explanation, exact_answer, confidence, ranking
    trajectory = models.JSONField(default=dict, blank=True)  # surfaced/previewed/opened/inspected/delivered/cited
    last_seq = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)  # moved by every step; a stale one means a lost worker
    sends = models.PositiveSmallIntegerField(default=0)  # times its task was queued (the reaper queues a lost one)
    sent_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The client's Idempotency-Key: a retried create returns this run instead of starting another.
    idempotency_key = models.CharField(max_length=200, null=True, blank=True)
    # The run this one follows up (a thread of questions on the same collection and documents).
    follows = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="follow_ups")

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["owner", "status"])]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "idempotency_key"],
                condition=models.Q(idempotency_key__isnull=False),
                name="run_unique_idempotency_key",
            )
        ]

    def __str__(self) -> str:
        return f"run {self.pk}: {self.question[:60]}"

    @property
    def is_finished(self) -> bool:
        return self.status not in self.ACTIVE_STATUSES

    @property
    def elapsed_s(self) -> float | None:
        if self.started_at is None:
            return None
        end = self.finished_at or timezone.now()
        return (end - self.started_at).total_seconds()


class RunEvent(models.Model):
    """One step of a run as the browser shows it; `seq` is gapless per run (events.py is the only writer)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=30)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="runevent_unique_seq")]
        ordering = ["run_id", "seq"]


class Search(models.Model):
    """A cached ranking under a per-run `search_id` (s1, s2, ...); at most 32 live per run."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="searches")
    search_id = models.CharField(max_length=10)
    query = models.TextField()
    reason = models.TextField(blank=True)
    searcher = models.CharField(max_length=20)
    ranking = models.JSONField(default=list)  # [[docid, score, passage_ordinal|None], ...] best first
    evicted = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "search_id"], name="search_unique_id")]
        ordering = ["run_id", "id"]


class Judgment(models.Model):
    """One typed System 1 judgment of a document region against a goal."""

    class Kind(models.TextChoices):
        NOUL = "noul"
        CHOICE = "choice"
        SCORE = "score"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="judgments", null=True, blank=True)
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="judgments")
    goal = models.TextField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    options = models.JSONField(default=list, blank=True)  # labels for choice/score
    probabilities = models.JSONField(default=list)  # one per option, or [p] for noul
    chosen = models.JSONField(default=list, blank=True)  # chosen option indices
    provider = models.CharField(max_length=20, default="local")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]


class Span(models.Model):
    """A raw span of a document: `document.text[start:end] == quote`, checked on every save."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="spans", null=True, blank=True)
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="spans")
    judgment = models.ForeignKey(Judgment, on_delete=models.SET_NULL, related_name="spans", null=True, blank=True)
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    quote = models.TextField()
    page = models.PositiveIntegerField(null=True, blank=True)
    probability = models.FloatField(null=True, blank=True)
    delivered = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]

    def clean(self) -> None:
        if not 0 <= self.start < self.end <= len(self.document.text):
            raise ValidationError(f"Span offsets {self.start}-{self.end} fall outside the document text.")
        if self.document.text[self.start : self.end] != self.quote:
            raise ValidationError("Span quote differs from document.text[start:end]: offsets and quote must agree.")

    def save(self, *args, **kwargs) -> None:
        self.clean()
        super().save(*args, **kwargs)

    @property
    def matches_source(self) -> bool:
        """Tell whether the stored offsets still select exactly the quote (the audit view shows broken spans)."""
        return self.document.text[self.start : self.end] == self.quote


class Citation(models.Model):
    """A part of a run's answer (a sentence of the explanation) pointing at a delivered span."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="citations")
    span = models.ForeignKey(Span, on_delete=models.CASCADE, related_name="citations")
    answer_part = models.PositiveIntegerField(default=0)  # index of the explanation sentence citing it
    marker = models.CharField(max_length=50)  # the inline marker as written, e.g. "[4983]"
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["run_id", "answer_part", "id"]


class ModelCall(models.Model):
    """One recorded model call (LLM or judge): replayable by `request_hash`; every retry is its own row."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="model_calls", null=True, blank=True)
    request_hash = models.CharField(max_length=64, db_index=True)
    provider = models.CharField(max_length=20)
    model = models.CharField(max_length=100)
    attempt = models.PositiveIntegerField(default=1)
    request = models.JSONField(default=dict)
    response = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    input_tokens = models.PositiveIntegerField(default=0)
    cached_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.FloatField(default=0.0)
    latency_s = models.FloatField(default=0.0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]


class Evaluation(models.Model):
    """One benchmark evaluation: a system over a dataset, with per-question results and a summary."""

    class Status(models.TextChoices):
        RUNNING = "running"
        DONE = "done"
        STOPPED = "stopped"  # the evaluation's spending cap was reached
        FAILED = "failed"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="evaluations")
    benchmark = models.CharField(max_length=20)
    system = models.CharField(max_length=20)
    collection = models.ForeignKey(Collection, on_delete=models.SET_NULL, null=True, blank=True)
    config = models.JSONField(default=dict, blank=True)
    key = models.CharField(max_length=64, db_index=True)  # identifies (benchmark, data, system, config) for resuming
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    summary = models.JSONField(default=dict, blank=True)
    out_dir = models.CharField(max_length=1000, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]


class EvaluationItem(models.Model):
    """One question of an evaluation: its run and its metrics."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="items")
    qid = models.CharField(max_length=200)
    run = models.ForeignKey(Run, on_delete=models.SET_NULL, null=True, blank=True, related_name="evaluation_items")
    metrics = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["evaluation", "qid"], name="evaluationitem_unique_qid")]
        ordering = ["id"]


class ApiKey(models.Model):
    """A per-user API key: shown once at creation, stored as a SHA-256 hash; `prefix` identifies it in lists."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12, unique=True)
    key_hash = models.CharField(max_length=64, unique=True)
    rate_per_minute = models.PositiveIntegerField(default=120)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class PiseriniBackend(models.Model):
    """A secret URL serving one collection in Pi-Serini's http-json shape; only its token's SHA-256 is stored.

    Pi-Serini's adapter sends no headers, so the token in the path is the credential (like an API key).
    """

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="piserini_backends")
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="piserini_backends")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12, unique=True)
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
