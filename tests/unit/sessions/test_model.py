"""sessions.model: a sign-in session's record (OpenID Connect Core 2 sid), its validity and what is stored of it."""

from __future__ import annotations

import hashlib

import pytest

from authgate import caches, records
from authgate.sessions.model import (
    COOKIE,
    FIELDS,
    Session,
    Upstream,
    hash_secret,
    item_of,
    session_of,
    user_key,
)

SESSION = Session(session_hash=hash_secret("secret"), sid="sid-1", tenant_id="demo", user_id="usr_a",
                  username="alice", auth_time=1000, acr="password", amr=("pwd",), created_at=1000,
                  last_active=1000, expires_at=1000 + 12 * 3600)


@pytest.fixture(autouse=True)
def default_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The session lifetime and idle timeout of the template's defaults (12 h, 2 h)."""
    monkeypatch.delenv("AUTHGATE_SESSION_IDLE", raising=False)
    monkeypatch.delenv("AUTHGATE_SESSION_LIFETIME", raising=False)
    caches.reset()


def test_a_session_lives_until_its_idle_timeout_or_its_absolute_lifetime() -> None:
    assert SESSION.live(1000) and SESSION.live(1000 + 7199)
    assert not SESSION.live(1000 + 7200)                                   # idle for two hours
    used = SESSION._replace(last_active=SESSION.expires_at - 60)
    assert used.live(SESSION.expires_at - 1) and not used.live(SESSION.expires_at)  # 12 hours, however used


def test_the_table_holds_a_hash_of_the_cookie_never_the_cookie() -> None:
    assert COOKIE == "authgate_session"
    assert hash_secret("secret") == hashlib.sha256(b"secret").hexdigest()
    assert user_key("demo", "usr_a") == "demo#usr_a"


def test_its_item_leaves_out_empty_sets_and_reads_back() -> None:
    item = records.to_item(FIELDS, SESSION._asdict())
    assert set(item) == {"session_hash", "sid", "tenant_id", "user_id", "username", "auth_time", "acr", "amr",
                         "created_at", "last_active", "expires_at"}
    assert Session(**records.from_item(FIELDS, item)) == SESSION
    full = SESSION._replace(clients=("demo-web",), grants=("grt_1",), generation=2)
    assert Session(**records.from_item(FIELDS, records.to_item(FIELDS, full._asdict()))) == full


def test_a_federated_sessions_upstream_is_a_map_of_its_non_empty_fields_and_reads_back() -> None:
    oidc = SESSION._replace(upstream=Upstream("https://op.example", "acme", "oidc", "00u1", sid="op-sid",
                                              id_token="v1.sealed"))
    item = item_of(oidc, user_key={"S": "demo#usr_a"})
    assert item["upstream"] == {"M": {"issuer": {"S": "https://op.example"}, "idp_id": {"S": "acme"},
                                      "protocol": {"S": "oidc"}, "subject": {"S": "00u1"}, "sid": {"S": "op-sid"},
                                      "id_token": {"S": "v1.sealed"}}}
    assert item["user_key"] == {"S": "demo#usr_a"}
    assert session_of(item) == oidc
    name_id = "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent|p-1"
    saml = SESSION._replace(upstream=Upstream("https://idp.example/saml", "corp", "saml", name_id, sid="_idx",
                                              name_id=name_id))
    assert session_of(item_of(saml)) == saml
    # A local sign-in has none, and an item written before the field existed reads as one.
    assert "upstream" not in item_of(SESSION) and session_of(item_of(SESSION)) == SESSION
    assert Upstream.of(None) is None and Upstream.of(()) is None
