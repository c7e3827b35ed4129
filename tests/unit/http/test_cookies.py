"""http.cookies: `__Host-` cookies on a stage (RFC 6265bis 4.1.3.2), plain ones on the loopback stack, each read
under its mode's name only."""

from __future__ import annotations

import pytest

from authgate.http.cookies import cookie_name, cookie_values, set_cookie, token_cookie
from authgate.http.request import Request
from authgate_cli.local.events import HttpRequest, build_event

STAGE = "https://auth.example.com/prod"
LOCAL = "http://127.0.0.1:3000"
TOKEN = "A" * 43


def with_cookies(monkeypatch: pytest.MonkeyPatch, issuer: str, *headers: str) -> Request:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_ISSUER", issuer)
    caches.reset()
    raw = HttpRequest("GET", "/oauth/authorize", "", [("Host", "127.0.0.1:3000"), *(("Cookie", h) for h in headers)])
    return Request.from_event(build_event(raw, resource="/oauth/authorize", path_params=None))


def test_a_stage_sends_host_cookies_and_the_loopback_stack_plain_ones() -> None:
    assert cookie_name("authgate_session", STAGE) == "__Host-authgate_session"
    assert cookie_name("authgate_session", "") == "__Host-authgate_session"  # no issuer known: the strict mode
    assert cookie_name("authgate_session", LOCAL) == "authgate_session"
    # Path=/ and no Domain even under a stage path: a __Host- cookie may have no other (RFC 6265bis 4.1.3.2).
    assert set_cookie("authgate_session", "s3cr3t", STAGE, same_site="Lax", max_age=60) == (
        "__Host-authgate_session=s3cr3t; HttpOnly; SameSite=Lax; Path=/; Secure; Max-Age=60")
    assert set_cookie("authgate_binding", "", LOCAL, same_site="Strict", max_age=0) == (
        "authgate_binding=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0")


def test_a_stage_reads_only_its_host_cookie(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain-named cookie is what another host of the site, or a plain-http answer, could have planted."""
    planted = with_cookies(monkeypatch, STAGE, f"authgate_session={TOKEN}")
    assert token_cookie(planted, "authgate_session", 64) is None
    both = with_cookies(monkeypatch, STAGE, f"authgate_session={'B' * 43}", f"x=1; __Host-authgate_session={TOKEN}")
    assert token_cookie(both, "authgate_session", 64) == TOKEN
    assert cookie_values(both, "authgate_session") == [TOKEN]


def test_the_loopback_stack_reads_only_the_plain_name(monkeypatch: pytest.MonkeyPatch) -> None:
    local = with_cookies(monkeypatch, LOCAL, f"__Host-authgate_session={TOKEN}; authgate_session=short")
    assert token_cookie(local, "authgate_session", 64) is None  # too short to be a token; the prefixed one is not ours
    assert cookie_values(local, "authgate_session") == ["short"]
    assert token_cookie(with_cookies(monkeypatch, LOCAL, f"authgate_session={TOKEN};;"), "authgate_session", 64) == TOKEN
    assert token_cookie(with_cookies(monkeypatch, LOCAL, "authgate_session=" + "<" * 43), "authgate_session", 64) is None
