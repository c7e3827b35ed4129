"""The error contract through `authgate serve` over real HTTP (every response checked by ContractSession)."""

from __future__ import annotations

import pytest

from tests.contract import ContractSession

pytestmark = pytest.mark.e2e

TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


@pytest.fixture
def http(base_url: str) -> ContractSession:
    with ContractSession(base_url) as session:
        yield session


def test_unknown_path_is_a_404_problem_with_echoed_correlation(http, base_url):
    r = http.get("/nope/x", headers={"x-request-id": "e2e-req-1", "x-correlation-id": "flow-1",
                                     "traceparent": TRACEPARENT})
    assert (r.status_code, r.headers["Content-Type"], r.headers["Vary"], r.headers["x-request-id"],
            r.headers["x-correlation-id"], r.headers["traceparent"]) == (
        404, "application/problem+json", "Accept", "e2e-req-1", "flow-1", TRACEPARENT)
    assert r.json() == {"type": f"{base_url}/problems/not_found", "title": "Not found", "status": 404,
                        "detail": "No route for GET /nope/x.", "instance": "/nope/x", "code": "not_found",
                        "traceId": "e2e-req-1"}
    assert http.readings[-1].code == "not_found"


def test_jsonapi_when_asked(http, base_url):
    r = http.get("/nope", headers={"Accept": "application/vnd.api+json", "x-request-id": "e2e-req-2"})
    assert (r.status_code, r.headers["Content-Type"]) == (404, "application/vnd.api+json")
    assert r.json() == {"jsonapi": {"version": "1.1"}, "errors": [{
        "status": "404", "code": "not_found", "title": "Not found",
        "links": {"type": f"{base_url}/problems/not_found"}, "meta": {"traceId": "e2e-req-2"},
        "detail": "No route for GET /nope."}]}


def test_insane_request_id_is_replaced(http):
    r = http.get("/nope", headers={"x-request-id": "x" * 200})
    assert r.headers["x-request-id"] != "x" * 200 and r.json()["traceId"] == r.headers["x-request-id"]


def test_token_endpoint_405_speaks_oauth(http, base_url):
    r = http.get("/oauth/token")
    assert (r.status_code, r.headers["Allow"], r.headers["Content-Type"], r.headers["Cache-Control"]) == (
        405, "OPTIONS, POST", "application/json", "no-store")
    assert r.json() == {"error": "invalid_request", "error_description": "GET is not allowed on /oauth/token.",
                        "error_uri": f"{base_url}/problems/method_not_allowed"}


def test_token_endpoint_wrong_client_is_401_basic(http):
    r = http.post("/oauth/token", data={"grant_type": "client_credentials"}, auth=("demo-service", "wrong"))
    assert (r.status_code, r.headers["WWW-Authenticate"], r.headers["Cache-Control"], r.json()["error"]) == (
        401, 'Basic realm="oauth"', "no-store", "invalid_client")


def test_charges_without_api_key_is_the_gateway_response(http, base_url):
    r = http.get("/charges", headers={"x-request-id": "ignored-by-gateway"})
    body = r.json()
    assert (r.status_code, r.headers["Content-Type"], body["code"], body["status"]) == (
        403, "application/problem+json", "invalid_api_key", 403)
    assert body["type"] == f"{base_url}/problems/invalid_api_key"
    assert body["traceId"] == r.headers["x-amz-apigw-id"] and "x-request-id" not in r.headers


def test_charges_without_bearer_is_401_challenge(http, base_url):
    r = http.get("/charges", headers={"x-api-key": "demo-api-key"})
    # Both schemes the API accepts (RFC 9449 7.1), each naming the resource metadata (RFC 9728 5.1).
    metadata = f'resource_metadata="{base_url}/.well-known/oauth-protected-resource/charges"'
    assert (r.status_code, r.headers["WWW-Authenticate"], r.json()["code"]) == (
        401, f'Bearer realm="api", {metadata}, DPoP algs="ES256 EdDSA RS256 PS256", {metadata}', "unauthenticated")


def test_problem_pages(http, base_url):
    page = http.get("/problems/invoice_locked", headers={"Accept": "text/html"})
    assert (page.status_code, page.headers["Content-Type"]) == (200, "text/html; charset=utf-8")
    assert "<code>invoice_locked</code> &mdash; Invoice locked" in page.text
    doc = http.get("/problems/invoice_locked", headers={"Accept": "application/json"})
    assert doc.json() == {"type": f"{base_url}/problems/invoice_locked", "code": "invoice_locked", "status": 403,
                          "title": "Invoice locked",
                          "meaning": "The invoice is locked and cannot be charged. A business rule, not an outage."}
    missing = http.get("/problems/no_such_code", headers={"Accept": "text/html"})
    assert (missing.status_code, missing.headers["Content-Type"], missing.json()["code"]) == (
        404, "application/problem+json", "not_found")


@pytest.mark.parametrize("client, shape", [("demo-legacy-a", "legacy-a"), ("demo-legacy-b", "legacy-b")])
def test_legacy_clients_get_their_shape_and_accept_overrides_it(http, client, shape):
    token = http.post("/oauth/token", data={"grant_type": "client_credentials", "scope": "charges:read"},
                      auth=(client, f"{client}-secret"))
    assert token.status_code == 200, token.text
    auth = {"Authorization": f"Bearer {token.json()['access_token']}", "x-api-key": "demo-api-key"}
    r = http.get("/charges/ch_does_not_exist", headers=auth)
    assert (r.status_code, r.headers["Content-Type"], http.readings[-1].shape) == (404, "application/json", shape)
    if shape == "legacy-a":
        assert r.json() == {"error": "not_found", "message": r.json()["message"], "code": "not_found", "status": 404}
    else:
        assert r.json()["success"] is False and r.json()["errors"][0]["code"] == "not_found"
    explicit = http.get("/charges/ch_does_not_exist", headers={**auth, "Accept": "application/problem+json"})
    assert (explicit.status_code, explicit.headers["Content-Type"]) == (404, "application/problem+json")
