"""Test URLs: the project's URLs plus the API, the key pages and /metrics (until the lead wires them in)."""

from django.urls import include, path

from evidence.metrics import metrics_view
from researchapp.api import api
from researchapp.urls import urlpatterns as project_urls

routes = {str(p.pattern) for p in project_urls}
urlpatterns = [
    *([] if "api/" in routes else [path("api/", api.urls)]),
    *([] if "metrics" in routes else [path("metrics", metrics_view, name="metrics")]),
    *([] if any("keys" in r for r in routes) else [path("", include("evidence.urls_keys"))]),
    *project_urls,
]
