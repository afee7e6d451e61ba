"""Static files as the web server sends them: precompressed, revalidated with a 304, never stale."""

from __future__ import annotations

import os
import shutil

import httpx
import pytest
from django.core.management import call_command
from django.test import override_settings

from evidence.static_serving import collected_is_current, finder_files, serve_static
from tests.api.helpers import serve_asgi


async def not_static(scope, receive, send):
    await send({"type": "http.response.start", "status": 404, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"the app"})


@pytest.fixture(scope="module")
def collected_once(tmp_path_factory):
    root = tmp_path_factory.mktemp("collected") / "static"
    with override_settings(STATIC_ROOT=root):
        call_command("collectstatic", "--noinput", "-v", "0")  # about 20 s: Brotli on every admin file
    return root


@pytest.fixture
def collected(collected_once, settings, tmp_path):
    """A private copy of the collected files (a test may age one), set as STATIC_ROOT."""
    settings.STATIC_ROOT = tmp_path / "static"
    shutil.copytree(collected_once, settings.STATIC_ROOT)  # copy2 keeps the mtimes collectstatic gave them
    return settings.STATIC_ROOT


def fetch(app, path, **headers):
    base, stop = serve_asgi(app)
    try:
        return httpx.get(base + path, headers=headers)
    finally:
        stop()


@pytest.mark.slow  # collects and compresses every static file: ~24 s
def test_collected_files_are_sent_compressed_with_validators_and_a_lifetime(collected):
    assert (collected / "evidence" / "app.js.gz").is_file(), "collectstatic wrote the compressed copy"
    app = serve_static(not_static)
    first = fetch(app, "/static/evidence/app.js", **{"Accept-Encoding": "gzip"})
    assert first.status_code == 200 and first.headers["content-encoding"] == "gzip"
    assert int(first.headers["content-length"]) < (collected / "evidence" / "app.js").stat().st_size
    assert first.headers["cache-control"] == "max-age=300, public"
    assert first.text == (collected / "evidence" / "app.js").read_text(), "httpx decoded the same bytes"
    again = fetch(app, "/static/evidence/app.js", **{"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert fetch(app, "/static/evidence/nothing.js").text == "the app", "an unknown file goes to the app"
    assert fetch(app, "/static/evidence/../../settings.py").text == "the app"


def test_a_copy_older_than_its_source_is_never_served(collected):
    sources = finder_files()
    assert "evidence/app.css" in sources and "admin/css/base.css" in sources
    assert collected_is_current(collected, sources)
    copy = collected / "evidence" / "app.css"
    copy.write_text("/* stale */")
    older = sources["evidence/app.css"].stat().st_mtime - 60
    os.utime(copy, (older, older))
    assert not collected_is_current(collected, sources)
    served = fetch(serve_static(not_static), "/static/evidence/app.css")
    assert served.status_code == 200 and served.text == sources["evidence/app.css"].read_text()


def test_without_collectstatic_the_sources_are_served(settings, tmp_path):
    settings.STATIC_ROOT = tmp_path / "never-collected"
    served = fetch(serve_static(not_static), "/static/evidence/favicon.svg")
    assert served.status_code == 200 and served.headers["content-type"].startswith("image/svg+xml")
    assert served.text == finder_files()["evidence/favicon.svg"].read_text()
