"""The authorization endpoint's errors for clients that registered themselves (RFC 9700 4.11.2): anyone can register
a redirect URI of their choosing and send people here with an erroneous request, so until this browser's person has
approved the client, an error is a page that names the redirect's origin and offers the redirect as a link, never a
redirect without a click. Clients an administrator registered are redirected as ever (tests/functional/test_authorize.py)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest

from authgate.clock import ManualClock
from tests.conftest import Invoke
from tests.demo import ISSUER
from tests.functional.authorize_support import (
    ERROR_PAGE_CSP,
    Browser,
    headers_of,
    page_of,
    redirect_of,
    without_request_id,
)
from tests.functional.logout_support import signed_in
from tests.functional.self_registration_support import REDIRECT, query, register
from tests.functional.token_support import body_of

OFFER = ("The application asks to take you to http://127.0.0.1:9 . It registered itself with this server, which "
         "cannot vouch for that address: go on only if you trust it. Continue to http://127.0.0.1:9")


@pytest.fixture
def agent(dcr: None, invoke: Invoke) -> str:
    """A client registered through POST /oauth/register (RFC 7591): its redirect URI is its registrant's choice."""
    return str(body_of(register(invoke, scope="openid charges:read"))["client_id"])


def assert_offered(result: dict[str, Any], status: int, code: str, title: str, error: str, detail: str) -> None:
    """The whole error page, offering the error response the client would have been sent as a link."""
    assert result["statusCode"] == status
    assert without_request_id(result) == {
        "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Pragma": "no-cache",
        "Content-Security-Policy": ERROR_PAGE_CSP, "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer"}
    named = "" if error == code else f" · OAuth error {error}"
    assert page_of(result).text() == (f"{title} {detail} Error code: {code}{named} · request id "
                                      f"{headers_of(result)['x-request-id']} {OFFER}")
    location = f"{REDIRECT}?" + urlencode([("error", error), ("error_description", detail), ("state", "s"),
                                           ("iss", ISSUER)])
    assert f'<a href="{location.replace("&", "&amp;")}" rel="noreferrer">' in result["body"]


def test_an_erroneous_request_is_a_page_offering_the_redirect(agent: str, browser: Browser) -> None:
    """RFC 9700 4.11.2 attack 1: an invalid scope was a 302 to the registrant's site, no sign-in, no click."""
    assert_offered(browser.get(query(agent, scope="charges:read no-such-scope")), 400, "invalid_scope",
                   "Invalid scope", "invalid_scope", "Unknown scope no-such-scope.")


def test_a_silent_request_is_a_page_offering_the_redirect(agent: str, browser: Browser) -> None:
    """RFC 9700 4.11.2 attack 3: prompt=none was a 302 with login_required, whoever opened the link."""
    assert_offered(browser.get(query(agent, scope="openid", nonce="n-1", prompt="none")), 400, "login_required", "Sign-in required",
                   "login_required", "The user is not signed in, and prompt=none forbids asking them to.")


def test_a_denial_is_a_page_offering_the_redirect(agent: str, browser: Browser) -> None:
    """RFC 9700 4.11.2 attack 2: the person who saw through the request and chose Deny was sent there anyway."""
    page = page_of(browser.get(query(agent)))
    result = browser.post([*page.hidden().items(), ("decision", "deny")])
    assert_offered(result, 403, "access_denied", "Access denied", "access_denied", "The user denied the request.")


@pytest.mark.slow
def test_only_the_persons_own_approval_vouches_for_the_client(agent: str, invoke: Invoke, browser: Browser,
                                                               clock: ManualClock) -> None:
    """Mallory approves her own registration; that is no reason to send alice there. Mallory's browser, whose person
    approved it, gets its errors redirected like an administrator's client's."""
    from authgate.stores.tenants import TenantStore
    from authgate.stores.users import UserStore

    demo = TenantStore().get("demo")
    assert demo is not None
    TenantStore().put(demo._replace(registered_clients=True))
    UserStore().create("demo", "mallory", "mallory-password")
    mallory = Browser(invoke)
    page = page_of(mallory.get(query(agent, scope="openid", nonce="n-1")))
    approved = mallory.post([*page.hidden().items(), ("tenant", "demo"), ("username", "mallory"),
                             ("password", "mallory-password"), ("decision", "approve")])
    mallory.keep_cookies(approved)
    assert redirect_of(approved).one("code")  # the client is now the demo tenant's

    signed_in(browser)  # alice, signed in in her own browser, never approved it
    assert_offered(browser.get(query(agent, scope="openid", nonce="n-1", prompt="none")), 400, "consent_required", "Consent required",
                   "consent_required",
                   "The user has not approved these scopes for this client, and prompt=none forbids asking.")

    clock.advance(2)
    vouched = mallory.get(query(agent, scope="openid", nonce="n-1", prompt="none", max_age="1"))
    assert vouched["statusCode"] == 302 and without_request_id(vouched) == {
        "Location": f"{REDIRECT}?" + urlencode([
            ("error", "login_required"),
            ("error_description", "The user is not signed in, and prompt=none forbids asking them to."),
            ("state", "s"), ("iss", ISSUER)]),
        "Cache-Control": "no-store", "Pragma": "no-cache"}
