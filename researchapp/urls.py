"""Root URLs: pages, auth, admin, metrics and the JSON API."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.views.generic import RedirectView

from evidence.metrics import metrics_view
from evidence.views.slashes import without_slash
from researchapp.api import api

urlpatterns = [
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("metrics", metrics_view, name="metrics"),
    # Browsers ask for /favicon.ico on pages that name no icon (the API docs): send them to the app's icon.
    path("favicon.ico", login_not_required(RedirectView.as_view(url=static("evidence/favicon.svg"), permanent=True))),
    path("", include("evidence.urls")),
    # Last: a page typed with a slash it does not take ("/ask/") redirects to it; anything else stays a 404.
    re_path(r"^(?P<path>.*[^/])/$", without_slash),
]
