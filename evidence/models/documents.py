"""Collections of documents with immutable canonical text, their passages, regions and index segments."""

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
    # The model its passage and sentence vectors were made with (evidence.encode.embedding.MODEL_ID for new ones);
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
