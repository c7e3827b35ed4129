"""The cookies of a stage (an https issuer) through the authorize function: `__Host-` names (RFC 6265bis 4.1.3.2),
so that no other host of the site can plant a session or a CSRF binding, and a plain-named cookie is never read
there. The loopback local stack keeps the plain names (the rest of the suite runs on it)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.functional.authorize_support import Browser, headers_of, page_of, redirect_of, web_params
from tests.functional.logout_support import ALICE, logout

STAGE = "https://auth.example.com"
SCOPE = "openid charges:read"


@pytest.fixture
def stage(browser: Browser, monkeypatch: pytest.MonkeyPatch) -> Iterator[Browser]:
    """The demo stack as a stage would serve it, behind an https issuer."""
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_ISSUER", STAGE)
    caches.reset()
    yield browser


def session_of(browser: Browser, name: str) -> Any:
    """Alice's session, its secret given to the browser as cookie `name` (as a sign-in, or someone planting, would)."""
    from authgate.stores.consents import ConsentStore
    from authgate.stores.sessions import SessionStore

    secret, session = SessionStore().create(tenant_id="demo", user_id=ALICE, username="alice", acr="password",
                                            amr=("pwd",), generation=0)
    ConsentStore().remember("demo", ALICE, "demo-web", tuple(SCOPE.split()), None)
    browser.cookie = f"{name}={secret}"
    return session


def test_the_binding_cookie_of_a_stage_is_a_host_cookie(stage: Browser) -> None:
    page = page_of(stage.get(web_params()))
    assert page.status == 200
    assert re.fullmatch(r"__Host-authgate_binding=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=/; Secure; "
                        r"Max-Age=2592000", page.headers["Set-Cookie"])


def test_a_stage_reads_its_session_only_under_the_host_name(stage: Browser, clock: ManualClock) -> None:
    """A plain authgate_session is what a sibling host could have set: it was read, so anyone on the site could
    sign a person in as someone of their choosing (login CSRF by cookie)."""
    session_of(stage, "authgate_session")
    planted = stage.get(web_params(scope=SCOPE, nonce="n", prompt="none"))
    assert redirect_of(planted).one("error") == "login_required"

    session_of(stage, "__Host-authgate_session")
    served = stage.get(web_params(scope=SCOPE, nonce="n", prompt="none"))
    assert served["statusCode"] == 302 and redirect_of(served).one("code")


def test_a_planted_binding_does_not_pass_the_forms_csrf_check(stage: Browser) -> None:
    """Someone who fetched a form of their own knows its binding; planted under the plain name, it is not read."""
    page = page_of(stage.get(web_params()))
    binding = (page.cookie() or "").partition("=")[2]
    stage.cookie = f"authgate_binding={binding}"
    result = stage.post([*page.hidden().items(), ("username", "alice"), ("password", "wrong"), ("decision", "approve")])
    assert result["statusCode"] == 400 and "Location" not in headers_of(result)
    assert "The sign-in form has expired or was altered." in page_of(result).text()


def test_sign_out_on_a_stage_clears_the_host_cookie(stage: Browser, clock: ManualClock) -> None:
    session_of(stage, "__Host-authgate_session")
    page = page_of(logout(stage, []))
    result = logout(stage, [*page.hidden().items(), ("confirm", "yes")], method="POST")
    assert result["statusCode"] == 200
    assert headers_of(result)["Set-Cookie"] == "__Host-authgate_session=; HttpOnly; SameSite=Lax; Path=/; Secure; Max-Age=0"


@pytest.mark.slow
def test_a_sign_in_on_a_stage_sets_a_host_session_cookie(stage: Browser) -> None:
    result = stage.submit(page_of(stage.get(web_params())))
    assert result["statusCode"] == 303 and redirect_of(result).one("code")
    assert re.fullmatch(r"__Host-authgate_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Lax; Path=/; Secure; "
                        r"Max-Age=43200", headers_of(result)["Set-Cookie"])
