"""deliveries.backchannel_logout: who hears that sessions ended (OpenID Connect Back-Channel Logout 1.0 2.4, 2.7)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from authgate.deliveries.backchannel_logout import KIND, announce, messages_for
from authgate.sessions.model import Session
from tests.demo import Demo

ISSUER = "https://auth.example.com"


def session(sid: str, user_id: str, *clients: str) -> Session:
    return Session(session_hash="h" + sid, sid=sid, tenant_id="demo", user_id=user_id, username="alice",
                   auth_time=1, acr="password", amr=("pwd",), created_at=1, last_active=1, expires_at=99,
                   clients=clients)


def with_logout_uri(client_id: str, uri: str, alg: str = "") -> None:
    from authgate.stores.clients import ClientStore

    store = ClientStore()
    client = store.get(client_id)
    assert client is not None
    store.replace(client._replace(backchannel_logout_uri=uri, id_token_signed_response_alg=alg))


def test_one_message_per_session_and_client_that_registered_a_uri(demo: Demo) -> None:
    """A client without a backchannel_logout_uri, or one that is gone, hears nothing; each names sid and sub."""
    with_logout_uri("demo-web", "https://rp.example/logout")
    with_logout_uri("demo-spa", "https://spa.example/bcl", "ES256")
    sessions = [session("s1", "usr_a", "demo-web", "demo-service", "gone-client"),
                session("s2", "usr_b", "demo-spa", "demo-web")]
    out = messages_for(sessions, ISSUER)
    jtis = [m.pop("jti") for m in out]
    assert out == [
        {"kind": KIND, "issuer": ISSUER, "client_id": "demo-web", "uri": "https://rp.example/logout", "sub": "usr_a",
         "sid": "s1", "alg": "RS256"},
        {"kind": KIND, "issuer": ISSUER, "client_id": "demo-spa", "uri": "https://spa.example/bcl", "sub": "usr_b",
         "sid": "s2", "alg": "ES256"},
        {"kind": KIND, "issuer": ISSUER, "client_id": "demo-web", "uri": "https://rp.example/logout", "sub": "usr_b",
         "sid": "s2", "alg": "RS256"},
    ]
    assert len(set(jtis)) == 3 and all(re.fullmatch(r"[A-Za-z0-9_-]{24}", j) for j in jtis)


def test_no_session_no_message(demo: Demo) -> None:
    assert messages_for([], ISSUER) == []
    assert messages_for([session("s1", "usr_a")], ISSUER) == []


def test_without_an_issuer_nothing_is_announced(log_lines: Callable[[], list[dict[str, Any]]]) -> None:
    """Nothing is read or queued (no AWS here): the tokens would name no issuer."""
    assert announce([session("s1", "usr_a", "demo-web")], "") == 0
    assert [line["message"] for line in log_lines()] == ["back-channel logout skipped: no issuer"]
