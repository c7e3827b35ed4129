"""authgate.outbound.documents and exchange against a real HTTPS server on 127.0.0.1: a JSON document, or why not."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from authgate.outbound.connection import Limits
from authgate.outbound.documents import Unavailable, fetch_json
from authgate.outbound.exchange import exchange, target
from tests.document_server import DocumentServer, Route, document_server, trust_documents

LIMITS = Limits(max_bytes=1024)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    with document_server(tmp_path_factory.mktemp("tls")) as srv:
        yield srv


@pytest.fixture
def trusted(server: DocumentServer, monkeypatch: pytest.MonkeyPatch) -> DocumentServer:
    return trust_documents(server, monkeypatch)


def refusal(url: str) -> str:
    with pytest.raises(Unavailable) as caught:
        fetch_json(url, limits=LIMITS)
    return caught.value.internal


def test_a_json_object_is_a_document(trusted: DocumentServer) -> None:
    trusted.routes["/doc"] = Route(b'{"issuer": "https://idp.example"}',
                                   headers={"Content-Type": "application/json; charset=utf-8"})
    assert fetch_json(trusted.url("/doc"), limits=LIMITS) == {"issuer": "https://idp.example"}
    assert trusted.requests[-1] == ("/doc", f"127.0.0.1:{trusted.port}")


@pytest.mark.parametrize(("route", "internal"), [
    (Route(b"[1]"), "its body is not a JSON object"),
    (Route(b'{"a": 1, "a": 2}'), "its body is not strict JSON (duplicate member 'a')"),
    (Route(b"{}", 404), "it answered HTTP 404, not 200"),
    (Route(b"{}", 302, headers={"Location": "https://elsewhere.example/"}),
     "it answered HTTP 302: authgate does not follow redirects"),
    (Route(b"{}", headers={"Content-Type": "text/plain"}), "served as text/plain, not application/json"),
    (Route(b"{" + b" " * 2000 + b"}"), "larger than 1024 bytes (its body is too large)"),
])
def test_what_is_not_a_document_is_unavailable(trusted: DocumentServer, route: Route, internal: str) -> None:
    trusted.routes["/doc"] = route
    assert refusal(trusted.url("/doc")) == internal


def test_loopback_and_plain_http_are_refused_without_the_local_flag(server: DocumentServer,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    trust_documents(server, monkeypatch)
    monkeypatch.setenv("AUTHGATE_ALLOW_LOOPBACK_OUTBOUND", "false")
    from authgate import caches

    caches.reset()
    server.routes["/doc"] = Route(b"{}")
    assert refusal(server.url("/doc")) == "127.0.0.1 -> 127.0.0.1 (loopback)"
    assert refusal(f"http://127.0.0.1:{server.port}/doc") == "not an https URL"
    assert server.requests == []


def test_an_exchange_returns_an_error_response_whole(trusted: DocumentServer) -> None:
    """A token endpoint's 400 (RFC 6749 5.2) reaches the caller with its body."""
    trusted.post_answers["/token"] = [Route(b'{"error":"invalid_grant"}', 400)]
    response = exchange("POST", target(trusted.url("/token")), body=b"grant_type=authorization_code",
                        headers={"Content-Type": "application/x-www-form-urlencoded"}, user_agent="test",
                        limits=LIMITS, allow_loopback=True)
    assert (response.status, response.body, response.header("content-type")) == (
        400, b'{"error":"invalid_grant"}', "application/json")
    assert trusted.posts[-1] == ("/token", "application/x-www-form-urlencoded", b"grant_type=authorization_code")


def test_the_demo_upstream_s_origin_is_the_one_loopback_reached_without_the_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches
    from authgate.outbound.exchange import loopback_allowed

    monkeypatch.setenv("AUTHGATE_DEMO_UPSTREAM", "http://127.0.0.1:8766")
    caches.reset()
    assert loopback_allowed("http://127.0.0.1:8766/.well-known/openid-configuration")
    assert loopback_allowed("http://127.0.0.1:8766")
    for other in ("http://127.0.0.1:87661/x", "http://127.0.0.1:8767/x", "https://127.0.0.1:8766.evil.example/", ""):
        assert not loopback_allowed(other), other


def test_a_body_allowed_past_the_usual_wire_bound_arrives_whole(trusted: DocumentServer) -> None:
    """WIRE_BYTES (64 KB) bounds every request; one allowed a larger body (a SAML IdP's metadata) may receive
    that body and 16 KB more."""
    trusted.routes["/large"] = Route(b"x" * 100_000, headers={"Content-Type": "application/xml"})
    response = exchange("GET", target(trusted.url("/large"), allow_loopback=True), user_agent="test",
                        limits=Limits(max_bytes=128 * 1024), allow_loopback=True)
    assert (response.status, response.body) == (200, b"x" * 100_000)
