"""Admin registrations: every domain model is browsable; canonical text is read-only."""

from django.contrib import admin

from . import models


@admin.register(models.Collection)
class CollectionAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "analyzer", "created_at"]
    search_fields = ["name"]


@admin.register(models.Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ["docid", "title", "collection", "source_format", "created_at"]
    list_filter = ["source_format"]
    search_fields = ["docid", "title"]
    readonly_fields = ["text", "sha256"]


@admin.register(models.Passage)
class PassageAdmin(admin.ModelAdmin):
    list_display = ["document", "ordinal", "start", "end"]
    exclude = ["embedding"]


@admin.register(models.Region)
class RegionAdmin(admin.ModelAdmin):
    list_display = ["document", "kind", "ordinal", "start", "end", "page"]
    list_filter = ["kind"]
    exclude = ["embedding"]


@admin.register(models.IngestJob)
class IngestJobAdmin(admin.ModelAdmin):
    list_display = ["id", "collection", "status", "files_done", "files_total", "created_at"]


@admin.register(models.IngestFile)
class IngestFileAdmin(admin.ModelAdmin):
    list_display = ["name", "job", "status", "documents_added", "error"]


@admin.register(models.Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["id", "question", "system", "status", "spent_usd", "created_at"]
    list_filter = ["status", "system"]


@admin.register(models.RunEvent)
class RunEventAdmin(admin.ModelAdmin):
    list_display = ["run", "seq", "kind", "created_at"]
    list_filter = ["kind"]


@admin.register(models.Search)
class SearchAdmin(admin.ModelAdmin):
    list_display = ["run", "search_id", "query", "searcher", "evicted"]


@admin.register(models.Judgment)
class JudgmentAdmin(admin.ModelAdmin):
    list_display = ["run", "document", "kind", "provider", "created_at"]


@admin.register(models.Span)
class SpanAdmin(admin.ModelAdmin):
    list_display = ["run", "document", "start", "end", "page", "delivered"]


@admin.register(models.Citation)
class CitationAdmin(admin.ModelAdmin):
    list_display = ["run", "span", "answer_part", "marker"]


@admin.register(models.ModelCall)
class ModelCallAdmin(admin.ModelAdmin):
    list_display = ["run", "provider", "model", "attempt", "cost_usd", "latency_s", "created_at"]
