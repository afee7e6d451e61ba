"""URLs of the Pi-Serini backend URL actions on a collection (included from the root URLs)."""

from django.urls import path

from .views import piserini

urlpatterns = [
    path("collections/<int:pk>/piserini-urls", piserini.create, name="create_piserini_url"),
    path("piserini-urls/<int:pk>/revoke", piserini.revoke, name="revoke_piserini_url"),
]
