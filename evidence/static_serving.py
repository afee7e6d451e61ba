"""Static files served by the ASGI app itself, efficiently: precompressed (gzip, and Brotli where installed),
with ETag and Last-Modified (a repeat visit gets 304), a Cache-Control lifetime, and never through Django's
request cycle.

`collectstatic` (run by `make run` at start and by the Docker build) writes the files and their compressed copies
to STATIC_ROOT; that copy is served when it is complete and no older than its sources. Otherwise (a fresh checkout,
a test server, a file edited since) the sources are served from where Django's finders find them, so a stale copy
is never served.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders

MAX_AGE_S = 300  # file names carry no content hash, so browsers revalidate (ETag, a 304) after five minutes


def finder_files() -> dict[str, Path]:
    """Every static file Django's finders know, by its path under STATIC_URL (the first finder wins, as Django)."""
    found: dict[str, Path] = {}
    for finder in finders.get_finders():
        for relative, storage in finder.list(None):
            prefix = (getattr(storage, "prefix", None) or "").strip("/")
            name = f"{prefix}/{relative}" if prefix else relative
            found.setdefault(name.replace("\\", "/"), Path(storage.path(relative)))
    return found


def collected_is_current(root: Path, sources: dict[str, Path]) -> bool:
    """Whether `root` holds a copy of every source at least as new as the source."""
    if not root.is_dir():
        return False
    for name, source in sources.items():
        copy = root / name
        if not copy.is_file() or copy.stat().st_mtime < source.stat().st_mtime:
            return False
    return True


def serve_static(application):
    """Wrap an ASGI application so requests under STATIC_URL are answered from the static files."""
    from servestatic import ServeStaticASGI

    prefix = "/" + settings.STATIC_URL.strip("/") + "/"
    static = ServeStaticASGI(application, max_age=0 if settings.DEBUG else MAX_AGE_S)
    sources = finder_files()
    root = Path(settings.STATIC_ROOT)
    if collected_is_current(root, sources):
        static.add_files(str(root), prefix=prefix)
    else:
        for name, source in sources.items():
            static.add_file_to_dictionary(prefix + name, str(source))
    return static
