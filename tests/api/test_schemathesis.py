"""Property-based API test: schemathesis generates requests from /api/openapi.json; none may get a 5xx."""

from __future__ import annotations

import os

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import ignored_auth

from evidence.auth_keys import create_key
from evidence.models import Collection
from researchapp.api import api
from tests.api.helpers import finished_run

# Derandomized, so CI always sends the same requests (EVIDENCE_FUZZ_RANDOM=1 explores new ones): a fuzz test that
# finds a new failure at random would block an unrelated change from landing.
FUZZ = {
    "deadline": None,
    "suppress_health_check": list(HealthCheck),
    "derandomize": os.environ.get("EVIDENCE_FUZZ_RANDOM") != "1",
}

# The schema is built in-process (the same document /api/openapi.json serves) and requests go to the WSGI app,
# so every generated request runs inside the test's database transaction.
schema = schemathesis.openapi.from_dict(api.get_openapi_schema(path_prefix="/api/"))
app = get_wsgi_application()


@pytest.fixture(autouse=True)
def keep_the_test_connection():
    """Keep the test's database connection open across requests (the raw WSGI app closes it at each end)."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def key(db, user, other_user, document, collection) -> str:
    finished_run(user, collection, document)  # objects for generated ids to hit: ids 1.. exist
    Collection.objects.create(owner=other_user, name="theirs")
    return create_key(user, "fuzz", rate_per_minute=1_000_000)[1]


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=25, **FUZZ)
def test_no_generated_request_gets_a_server_error(case, key):
    response = case.call(app=app, headers={"Authorization": f"Bearer {key}"})
    assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.text[:500]}"


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=5, **FUZZ)
def test_every_operation_refuses_anonymous_callers(case):
    response = case.call(app=app)
    # 400: a generated NUL byte is refused before authentication (evidence.errors.NulGuardMiddleware).
    # 403: a secret Pi-Serini backend URL refuses a client it cannot place on this machine before anything else.
    refused = {400, 401, 403, 405, 413, 422}
    assert response.status_code in refused, f"{case.method} {case.formatted_path}: {response.status_code}"


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=15, **FUZZ)
def test_every_response_matches_the_documented_contract(case, key):
    # Every built-in check: documented status codes, content types, headers and response bodies, valid input
    # accepted and invalid input refused. All but ignored_auth, whose probe goes over the network rather than to
    # the app (test_every_operation_refuses_anonymous_callers makes that check here).
    headers = {"Authorization": f"Bearer {key}"}
    response = case.call(app=app, headers=headers)
    case.validate_response(response, headers=headers, excluded_checks=[ignored_auth])
