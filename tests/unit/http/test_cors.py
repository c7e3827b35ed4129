"""authgate.http.cors through an App: preflight, exact origins, Vary, errors readable, never * or credentials.

The origin predicate stands in for ClientsTable's origin records (the App takes any callable); what is tested is
the CORS protocol the App speaks.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from authgate.clients.origins import origin_of
from authgate.errors import ApiError
from authgate.http.app import App, Route
from authgate.http.cors import ALLOWED_HEADERS, EXPOSED_HEADERS, CorsPolicy
from authgate.http.response import Response
from tests.demo import ISSUER
from tests.events import event

SPA = "http://127.0.0.1:8765"
CALLS: list[int] = []


def origins(origin: str) -> bool:
    CALLS.append(1)
    return origin in {SPA, "https://spa.example"}


def token(_request: Any) -> Response:
    return Response.json(200, {"access_token": "t"}, Cache_Control="no-store")


def refuse(_request: Any) -> Response:
    raise ApiError("invalid_grant", "The authorization code is invalid or expired.")


APP = App("t", {("/oauth/token", "POST"): Route(token, "oauth"), ("/oauth/revoke", "POST"): Route(refuse, "oauth"),
                ("/charges", "GET"): Route(token)},
          cors={"/oauth/token": CorsPolicy(("POST",), origins), "/oauth/revoke": CorsPolicy(("POST",), origins)})


def call(method: str, resource: str, headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
    result = APP(event(method, resource, headers=headers))
    flat = {k: ", ".join(v) for k, v in result["multiValueHeaders"].items()}
    flat.pop("x-request-id")
    return result["statusCode"], flat, result["body"]


@pytest.fixture(autouse=True)
def fresh() -> None:
    CALLS.clear()


def test_preflight_from_a_registered_origin_is_204_with_exact_origin() -> None:
    status, headers, body = call("OPTIONS", "/oauth/token", {
        "Origin": SPA, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"})
    assert (status, body) == (204, "")
    assert headers == {
        "Access-Control-Allow-Origin": SPA,
        "Access-Control-Allow-Methods": "POST",
        "Access-Control-Allow-Headers": ", ".join(ALLOWED_HEADERS),
        "Access-Control-Max-Age": "600",
        "Allow": "OPTIONS, POST",
        "Vary": "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
    }


@pytest.mark.parametrize("origin", ["https://evil.example", "null", "http://127.0.0.1:8766",
                                    "http://localhost:8765", SPA + "/", "HTTP://127.0.0.1:8765"])
def test_preflight_from_any_other_origin_is_403_without_cors_headers(origin: str) -> None:
    status, headers, body = call("OPTIONS", "/oauth/token", {"Origin": origin,
                                                             "Access-Control-Request-Method": "POST"})
    assert status == 403
    assert "Access-Control-Allow-Origin" not in headers and "Access-Control-Allow-Credentials" not in headers
    assert headers["Vary"] == "Origin, Access-Control-Request-Method, Access-Control-Request-Headers"
    payload = json.loads(body)
    assert payload["error"] == "invalid_request"  # OAuth JSON on an OAuth route; error_uri names the code
    assert payload["error_uri"] == f"{ISSUER}/problems/origin_not_allowed"


def test_plain_options_lists_the_methods() -> None:
    status, headers, _ = call("OPTIONS", "/oauth/token", {})
    assert (status, headers) == (204, {"Allow": "OPTIONS, POST"})
    assert CALLS == [], "no Origin: the origins are never read"


def test_a_cacheable_response_varies_on_origin_even_without_one() -> None:
    """A shared cache must not give a browser the Origin-less variant (Fetch, CORS and HTTP caching)."""
    app = App("t", {("/jwks", "GET"): Route(lambda _r: Response.json(200, {}, Cache_Control="public, max-age=300"))},
              cors={"/jwks": CorsPolicy(("GET",), origins)})
    result = app(event("GET", "/jwks"))
    assert result["multiValueHeaders"]["Vary"] == ["Origin"]
    assert "Access-Control-Allow-Origin" not in result["multiValueHeaders"]


def test_actual_response_from_an_allowed_origin_is_readable() -> None:
    status, headers, _ = call("POST", "/oauth/token", {"Origin": SPA})
    assert status == 200
    assert headers["Access-Control-Allow-Origin"] == SPA
    assert headers["Access-Control-Expose-Headers"] == ", ".join(EXPOSED_HEADERS)
    assert headers["Vary"] == "Origin"
    assert "Access-Control-Allow-Credentials" not in headers


def test_an_error_is_readable_too_so_the_app_sees_invalid_grant() -> None:
    status, headers, body = call("POST", "/oauth/revoke", {"Origin": "https://spa.example"})
    assert (status, json.loads(body)["error"]) == (400, "invalid_grant")
    assert headers["Access-Control-Allow-Origin"] == "https://spa.example"


def test_other_origins_get_the_response_without_cors_headers_but_with_vary() -> None:
    status, headers, _ = call("POST", "/oauth/token", {"Origin": "https://evil.example"})
    assert status == 200
    assert "Access-Control-Allow-Origin" not in headers and headers["Vary"] == "Origin"


def test_a_resource_without_a_policy_never_answers_cors() -> None:
    status, headers, _ = call("GET", "/charges", {"Origin": SPA})
    assert status == 200 and not any(k.startswith("Access-Control") for k in headers) and "Vary" not in headers
    status, headers, _ = call("OPTIONS", "/charges", {"Origin": SPA, "Access-Control-Request-Method": "GET"})
    assert (status, headers["Allow"]) == (405, "GET")


def test_405_on_a_cors_resource_lists_options() -> None:
    status, headers, _ = call("GET", "/oauth/token", {})
    assert (status, headers["Allow"]) == (405, "OPTIONS, POST")


def test_origins_that_cannot_be_read_mean_no_cors_not_a_failure() -> None:
    def broken(_origin: str) -> bool:
        raise ApiError("service_unavailable")

    app = App("t", {("/x", "GET"): Route(token)}, cors={"/x": CorsPolicy(("GET",), broken)})
    result = app(event("GET", "/x", headers={"Origin": SPA}))
    assert result["statusCode"] == 200
    assert "Access-Control-Allow-Origin" not in result["multiValueHeaders"]


@pytest.mark.parametrize("uri, origin", [
    ("http://127.0.0.1:8765/spa/callback", "http://127.0.0.1:8765"),
    ("https://App.Example:443/cb?x=1", "https://app.example"),
    ("http://app.example:80/cb", "http://app.example"),
    ("https://app.example:8443/cb", "https://app.example:8443"),
    ("https://user@app.example/cb", "https://app.example"),
    ("http://[::1]:3000/cb", "http://[::1]:3000"),
    ("com.example.app:/oauth2redirect", None),   # a native app: no web origin (RFC 8252 7.1)
    ("http://127.0.0.1:99999/cb", None),
])
def test_origin_of_a_redirect_uri(uri: str, origin: str | None) -> None:
    """RFC 6454 6.2: scheme and host lower-cased, the default port omitted, no path or userinfo."""
    assert origin_of(uri) == origin
