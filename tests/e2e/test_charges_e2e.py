"""The charges API through `authgate serve` with real HTTP: tokens from /oauth/token, x-api-key,
every response checked against the error contract (ContractSession)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from tests.contract import ContractSession

pytestmark = pytest.mark.e2e

API_KEY = {"x-api-key": "demo-api-key"}
CHARGE = {"amount": 1050, "currency": "usd", "description": "e2e"}
# demo-api-key's usage plan allows 10 requests/s (burst 20) and the session shares it with
# every other e2e test: pace requests so the gateway's throttle is never what a test measures.
PACE_SECONDS = 0.11


class PacedSession(ContractSession):
    def request(self, method: Any, url: Any, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        time.sleep(PACE_SECONDS)
        return super().request(method, url, *args, **kwargs)


@pytest.fixture(scope="module")
def tokens(base_url: str) -> dict[str, str]:
    out = {}
    with ContractSession(base_url) as session:
        for client in ("demo-service", "acme-service", "demo-legacy-a", "demo-legacy-b"):
            r = session.post("/oauth/token", auth=(client, f"{client}-secret"),
                             data={"grant_type": "client_credentials", "scope": "charges:read charges:write"})
            assert r.status_code == 200, r.text
            out[client] = r.json()["access_token"]
    return out


@pytest.fixture
def http(base_url: str) -> Iterator[PacedSession]:
    with PacedSession(base_url) as session:
        yield session


def auth(tokens: dict[str, str], client: str = "demo-service", **extra: str) -> dict[str, str]:
    return {**API_KEY, "Authorization": f"Bearer {tokens[client]}", **extra}


def test_create_get_and_list(http, base_url, tokens):
    r = http.post("/charges", json=CHARGE, headers=auth(tokens))
    assert r.status_code == 201
    charge = r.json()
    assert r.headers["Location"] == f"{base_url}/charges/{charge['id']}"
    assert (r.headers["Content-Type"], r.headers["Cache-Control"]) == ("application/json", "no-store")
    assert "RateLimit" in r.headers and "RateLimit-Policy" in r.headers

    got = http.get(f"/charges/{charge['id']}", headers=auth(tokens))
    assert (got.status_code, got.json()) == (200, charge)

    page = http.get("/charges", params={"limit": "1"}, headers=auth(tokens)).json()
    assert page["data"] == [charge]

    # Another tenant: the same id is simply not found.
    foreign = http.get(f"/charges/{charge['id']}", headers=auth(tokens, "acme-service"))
    assert (foreign.status_code, foreign.headers["Content-Type"], foreign.json()["code"]) == (
        404, "application/problem+json", "not_found")
    assert charge["id"] not in [c["id"] for c in http.get("/charges", headers=auth(tokens, "acme-service")).json()["data"]]


def test_idempotent_retry_and_key_reuse(http, tokens):
    key = {"Idempotency-Key": f"e2e-{uuid.uuid4()}"}
    first = http.post("/charges", json=CHARGE, headers=auth(tokens, **key))
    again = http.post("/charges", json=CHARGE, headers=auth(tokens, **key))
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert (again.content, again.headers["Location"]) == (first.content, first.headers["Location"])
    other = http.post("/charges", json={**CHARGE, "amount": 1}, headers=auth(tokens, **key))
    assert (other.status_code, other.json()["code"]) == (422, "idempotency_key_reused")
    bad = http.post("/charges", json=CHARGE, headers=auth(tokens, **{"Idempotency-Key": "x" * 256}))
    assert (bad.status_code, bad.json()["code"]) == (400, "invalid_idempotency_key")


def test_business_rules_and_bad_input_in_every_shape(http, tokens):
    locked = http.post("/charges", json={**CHARGE, "invoice_id": "inv_locked"}, headers=auth(tokens))
    assert (locked.status_code, locked.json()["code"], locked.json()["status"]) == (403, "invoice_locked", 403)
    paid = http.post("/charges", json={**CHARGE, "invoice_id": "inv_open"}, headers=auth(tokens))
    assert paid.status_code in (201, 409)  # 409 if an earlier run in this session paid it
    again = http.post("/charges", json={**CHARGE, "invoice_id": "inv_open"}, headers=auth(tokens))
    assert (again.status_code, again.json()["code"]) == (409, "invoice_already_paid")

    malformed = http.post("/charges", data=b'{"amount":', headers=auth(tokens, **{"Content-Type": "application/json"}))
    assert (malformed.status_code, malformed.json()["code"]) == (400, "malformed_json")
    form = http.post("/charges", data={"amount": "1"}, headers=auth(tokens))
    assert (form.status_code, form.json()["code"]) == (415, "unsupported_media_type")
    huge = http.post("/charges", json={**CHARGE, "description": "x" * 70_000}, headers=auth(tokens))
    assert (huge.status_code, huge.json()["code"]) == (413, "payload_too_large")

    invalid = {"amount": "10", "currency": "usd", "extra": True}
    problem = http.post("/charges", json=invalid, headers=auth(tokens))
    assert (problem.status_code, problem.headers["Content-Type"]) == (422, "application/problem+json")
    assert [e["pointer"] for e in problem.json()["errors"]] == ["/amount", "/extra"]
    jsonapi = http.post("/charges", json=invalid, headers=auth(tokens, Accept="application/vnd.api+json"))
    assert (jsonapi.status_code, jsonapi.headers["Content-Type"]) == (422, "application/vnd.api+json")
    assert [e["source"] for e in jsonapi.json()["errors"]] == [{"pointer": "/amount"}, {"pointer": "/extra"}]
    legacy_a = http.post("/charges", json=invalid, headers=auth(tokens, "demo-legacy-a"))
    assert (legacy_a.status_code, legacy_a.json()["error"], legacy_a.json()["status"]) == (422, "validation_failed", 422)
    legacy_b = http.post("/charges", json=invalid, headers=auth(tokens, "demo-legacy-b"))
    assert (legacy_b.status_code, legacy_b.json()["success"]) == (422, False)
    assert [e["field"] for e in legacy_b.json()["errors"]] == ["amount", "extra"]

    cursor = http.get("/charges", params={"cursor": "bogus"}, headers=auth(tokens))
    assert (cursor.status_code, cursor.json()["errors"]) == (400, [
        {"detail": "The cursor is not valid; pass next_cursor from a previous page unchanged.", "parameter": "cursor"}])


def test_concurrent_posts_with_one_key_create_one_charge(base_url, tokens):
    """16 simultaneous requests over HTTP (within the API key's burst of 20)."""
    time.sleep(2.5)  # let the usage plan's bucket refill so the burst is the function's, not the gateway's
    key = {"Idempotency-Key": f"e2e-burst-{uuid.uuid4()}"}
    with ContractSession(base_url) as session:
        def post(_: int) -> requests.Response:
            # A connection refused or reset under the burst (the emulator's listen backlog) is
            # retried, as a client would: with the same Idempotency-Key that is always safe.
            for attempt in range(3):
                try:
                    return session.post("/charges", json=CHARGE, headers=auth(tokens, **key))
                except requests.ConnectionError:
                    if attempt == 2:
                        raise
                    time.sleep(0.2)
            raise AssertionError("unreachable")

        with ThreadPoolExecutor(16) as pool:
            responses = list(pool.map(post, range(16)))
    created = [r for r in responses if r.status_code == 201 and "Idempotent-Replayed" not in r.headers]
    assert len(created) == 1, [r.status_code for r in responses]
    charge_id = created[0].json()["id"]
    for r in responses:
        assert r.status_code in (201, 409), r.text
        if r.status_code == 201:
            assert r.json()["id"] == charge_id
        else:
            assert (r.json()["code"], r.headers["Retry-After"]) == ("idempotency_request_in_progress", "1")
    time.sleep(2.5)
