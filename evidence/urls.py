"""URLs of the evidence app's pages (the JSON API and MCP are mounted by the root URLs and the ASGI app)."""

from django.urls import path

from . import piserini
from .views import ask, audit, collections, compare, downloads, evaluations, health, home, keys, runs, stream

urlpatterns = [
    path("", home.home, name="home"),
    path("health", health.health, name="health"),
    path("live", health.live, name="live"),
    path("ask", ask.ask, name="ask"),
    path("ask/documents", ask.document_search, name="document_search"),
    path("runs/", runs.runs_list, name="runs"),
    path("runs/<int:pk>/", runs.run_page, name="run"),
    path("runs/<int:pk>/stream", stream.stream, name="run_stream"),
    path("runs/<int:pk>/cancel", runs.cancel, name="run_cancel"),
    path("runs/<int:pk>/follow-up", runs.follow_up, name="run_follow_up"),
    path("runs/<int:pk>/events", runs.events_poll, name="run_events"),
    path("runs/<int:pk>/audit", audit.audit, name="audit"),
    path("runs/<int:pk>/export.<str:fmt>", downloads.export_run, name="run_export"),
    path("compare", compare.compare, name="compare"),
    path("evaluations/", evaluations.evaluations, name="evaluations"),
    path("evaluations/<int:pk>/", evaluations.evaluation, name="evaluation"),
    path("evaluations/compare", evaluations.compare_evaluations, name="compare_evaluations"),
    path("collections/", collections.collections, name="collections"),
    path("collections/<int:pk>/", collections.collection, name="collection"),
    path("collections/<int:pk>/upload", collections.upload, name="upload"),
    path("uploads/<int:pk>/", collections.job, name="job"),
    path("uploads/<int:pk>/files/<int:file_pk>/retry", collections.retry_file, name="retry_file"),
    path("documents/<int:pk>/", collections.document, name="document"),
    path("documents/<int:pk>/pages/<int:number>.png", audit.page_image, name="page_image"),
    path("keys/", keys.keys, name="keys"),
    path("keys/<int:pk>/revoke", keys.revoke, name="revoke_key"),
    path("collections/<int:pk>/piserini-urls", piserini.create_url, name="create_piserini_url"),
    path("piserini-urls/<int:pk>/revoke", piserini.revoke_url, name="revoke_piserini_url"),
]
