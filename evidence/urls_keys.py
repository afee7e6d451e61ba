"""URLs of the API key pages (included from the root URLs)."""

from django.urls import path

from .views import keys

urlpatterns = [
    path("keys/", keys.keys, name="keys"),
    path("keys/<int:pk>/revoke", keys.revoke, name="revoke_key"),
]
