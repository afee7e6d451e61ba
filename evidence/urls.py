"""URLs of the evidence app's pages."""

from django.urls import path

from .views import health, home

urlpatterns = [
    path("", home.home, name="home"),
    path("health", health.health, name="health"),
]
