"""sessions.model: a sign-in session's record (OpenID Connect Core 2 sid), its validity and what is stored of it."""

from __future__ import annotations

import hashlib

import pytest

from authgate import caches, records
from authgate.sessions.model import COOKIE, FIELDS, Session, hash_secret, user_key

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
