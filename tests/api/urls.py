"""Test URLs: the project's URLs plus the API and the key pages (until the lead wires them into researchapp.urls)."""

from django.urls import include, path

from researchapp.api import api
from researchapp.urls import urlpatterns as project_urls

included = {str(p.pattern) for p in project_urls}
urlpatterns = [
    *([] if "api/" in included else [path("api/", api.urls)]),
    *([] if any("keys" in str(p.pattern) for p in project_urls) else [path("", include("evidence.urls_keys"))]),
    *project_urls,
]
