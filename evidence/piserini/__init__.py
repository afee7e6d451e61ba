"""The Pi-Serini wing: a collection served to Pi-Serini's `http-json` backend over the one tool contract
(`retrieval/piserini.py`): the secret backend URLs (`backends.py`), their endpoints in the API (`api.py`) and the
collection page's create and revoke actions (`views.py`)."""

from .api import manage_router, router
from .backends import (
    base_url,
    create_backend,
    extension_config,
    extension_config_json,
    hash_token,
    remote_allowed,
    revoke_backend,
    site_url,
    verify_token,
)
from .views import create_url, revoke_url

__all__ = [
    "base_url",
    "create_backend",
    "create_url",
    "extension_config",
    "extension_config_json",
    "hash_token",
    "manage_router",
    "remote_allowed",
    "revoke_backend",
    "revoke_url",
    "router",
    "site_url",
    "verify_token",
]
