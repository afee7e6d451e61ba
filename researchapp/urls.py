"""Root URLs: pages, auth, admin and the JSON API."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

urlpatterns = [
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    # The JSON API (django-ninja) goes here: path("api/", api.urls),
    path("", include("evidence.urls")),
]
