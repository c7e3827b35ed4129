"""An IdP's keys: inline, or its JWKS URI fetched under authgate.outbound's rules and cached within bounds
(docs/delegation.md, "Trusted identity providers")."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from authgate.identity_providers.model import IdentityProvider
from authgate.tokens.idp_keys import (
    REFETCH_SECONDS,
    TTL_SECONDS,
    IdpKeyCache,
    KeysUnavailable,
    fetch_jwks,
)
from tests.document_server import DocumentServer, Route, document_server, trust_documents
from tests.idp_support import TestIdp


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    with document_server(tmp_path_factory.mktemp("tls")) as srv:
        yield srv


@pytest.fixture
def idp_server(server: DocumentServer, monkeypatch: pytest.MonkeyPatch) -> DocumentServer:
    return trust_documents(server, monkeypatch)


def served(server: DocumentServer, idp: TestIdp, path: str = "/jwks.json") -> IdentityProvider:
    server.routes[path] = Route(idp.jwks_json(), headers={"Content-Type": "application/jwk-set+json"})
    return IdentityProvider("demo", idp.issuer, jwks_uri=server.url(path))


def test_inline_keys_need_no_fetch() -> None:
    idp = TestIdp("https://idp.example")
    trusted = IdentityProvider("demo", idp.issuer, jwks=tuple(idp.jwks()["keys"]))
    assert IdpKeyCache().keys(trusted, "idp-key-1") == trusted.jwks


def test_a_jwks_uri_is_fetched_once_and_cached(idp_server: DocumentServer, clock: object) -> None:
    idp = TestIdp("https://idp.example")
    trusted = served(idp_server, idp)
    cache = IdpKeyCache()
    assert cache.keys(trusted, "idp-key-1") == tuple(idp.jwks()["keys"])
    assert cache.keys(trusted, "idp-key-1") == tuple(idp.jwks()["keys"])
    assert [path for path, _ in idp_server.requests] == ["/jwks.json"]


def test_an_unknown_kid_refetches_at_most_once_per_window(idp_server: DocumentServer, clock: object) -> None:
    """A rotated key is found by a refetch; a flood of junk kids costs one fetch per REFETCH_SECONDS."""
    idp = TestIdp("https://idp.example")
    trusted = served(idp_server, idp)
    cache = IdpKeyCache()
    cache.keys(trusted, "idp-key-1")
    for junk in range(50):
        cache.keys(trusted, f"junk-{junk}")
    assert len(idp_server.requests) == 1
    clock.advance(REFETCH_SECONDS)  # type: ignore[attr-defined]
    rotated = TestIdp("https://idp.example", kid="idp-key-2")
    served(idp_server, rotated)
    assert cache.keys(trusted, "idp-key-2") == tuple(rotated.jwks()["keys"])
    cache.keys(trusted, "junk-again")
    assert len(idp_server.requests) == 2


def test_the_cache_expires(idp_server: DocumentServer, clock: object) -> None:
    trusted = served(idp_server, TestIdp("https://idp.example"))
    cache = IdpKeyCache()
    cache.keys(trusted, None)
    clock.advance(TTL_SECONDS)  # type: ignore[attr-defined]
    cache.keys(trusted, None)
    assert len(idp_server.requests) == 2


def test_a_failed_refetch_keeps_the_fresh_set(idp_server: DocumentServer, clock: object) -> None:
    idp = TestIdp("https://idp.example")
    trusted = served(idp_server, idp)
    cache = IdpKeyCache()
    cache.keys(trusted, None)
    idp_server.routes["/jwks.json"] = Route(b"{}", 500)
    assert cache.keys(trusted, "rotated") == tuple(idp.jwks()["keys"])


def test_loopback_is_refused_without_the_local_flag(idp_server: DocumentServer,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_ALLOW_LOOPBACK_OUTBOUND", "false")
    caches.reset()
    trusted = served(idp_server, TestIdp("https://idp.example"))
    with pytest.raises(KeysUnavailable, match=r": 127.0.0.1 -> 127.0.0.1 \(loopback\)$"):
        IdpKeyCache().keys(trusted, None)
    assert idp_server.requests == []


@pytest.mark.parametrize(("route", "reason"), [
    (Route(b'{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}', headers={"Content-Type": "application/json"}),
     "not a JWK Set of public signing keys: key 0 holds the private member 'k'"),
    (Route(b"x" * (40 * 1024), headers={"Content-Type": "application/json"}),
     "larger than 32768 bytes (its body is too large)"),
    (Route(b"{}", 302, headers={"Location": "https://127.0.0.1/"}),
     "it answered HTTP 302: authgate does not follow redirects"),
    (Route(b"<html/>", headers={"Content-Type": "text/html"}), "served as text/html, not application/json"),
    (Route(b'{"keys": [], "keys": []}', headers={"Content-Type": "application/json"}),
     "its body is not strict JSON (duplicate member 'keys')"),
])
def test_what_is_not_a_jwks_is_refused(idp_server: DocumentServer, route: Route, reason: str) -> None:
    idp_server.routes["/jwks.json"] = route
    with pytest.raises(KeysUnavailable) as refused:
        fetch_jwks(idp_server.url("/jwks.json"))
    assert reason in str(refused.value)


def test_plain_http_is_refused() -> None:
    with pytest.raises(KeysUnavailable, match="not an https URL"):
        fetch_jwks("http://idp.example/jwks.json")


def test_encryption_keys_and_other_algorithms_are_left_out(idp_server: DocumentServer) -> None:
    """Keycloak and others publish an encryption key beside the signing ones: it cannot verify anything."""
    idp = TestIdp("https://idp.example")
    signing = idp.jwks()["keys"][0]
    encryption = {**signing, "kid": "enc-1", "use": "enc", "alg": "RSA-OAEP"}
    hmac = {**signing, "kid": "hs-1", "alg": "HS256"}
    idp_server.routes["/mixed.json"] = Route(json.dumps({"keys": [encryption, signing, hmac]}).encode())
    assert fetch_jwks(idp_server.url("/mixed.json")) == (signing,)
