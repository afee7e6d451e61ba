"""A page typed with a trailing slash it does not take ("/ask/") redirects to the page ("/ask")."""

from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponsePermanentRedirect
from django.urls import Resolver404, resolve


# Open to all: the page redirected to asks for a login itself, and a URL that is no page is a 404 for anyone.
@login_not_required
def without_slash(request: HttpRequest, path: str) -> HttpResponsePermanentRedirect:
    """Redirect GET /page/ to /page when /page is a page and /page/ is none (the last URL pattern of all)."""
    target, separator, query = request.get_full_path().partition("?")
    target = target[:-1]
    if request.method not in ("GET", "HEAD") or target.endswith("/") or target.startswith("//"):
        raise Http404
    try:
        resolve(request.path_info[:-1], urlconf=getattr(request, "urlconf", None))
    except Resolver404:
        raise Http404 from None
    return HttpResponsePermanentRedirect(target + separator + query)
