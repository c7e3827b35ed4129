"""The account page (/oauth/account) through the authorize function: its forms posted with their CSRF fields, and its
own password sign-in."""

from __future__ import annotations

import re

from tests.functional.authorize_support import PAGE_HEADERS, Browser, Page, page_of

ACCOUNT = "/oauth/account"
CSP = ("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; "
       "base-uri 'none'")
# A ceremony's page runs its one script (/assets/passkeys.js).
CEREMONY_CSP = CSP.replace("default-src 'none'; ", "default-src 'none'; script-src 'self'; ")


def account_post(browser: Browser, page: Page, csp: str = CSP, **fields: str) -> Page:
    """Submit a form of `page` (its CSRF fields) with `fields`; the whole page headers checked."""
    hidden = {k: v for k, v in page.hidden().items() if k in ("nonce", "csrf")}
    result = browser.post(list({**hidden, **fields}.items()), path=ACCOUNT)
    browser.keep_cookies(result)
    answer = page_of(result)
    assert answer.status == 200
    assert {k: answer.headers[k] for k in PAGE_HEADERS} == PAGE_HEADERS
    assert answer.headers["Content-Security-Policy"] == csp
    return answer


def signed_in(browser: Browser, username: str = "alice") -> Page:
    start = page_of(browser.get_raw("", path=ACCOUNT))
    browser.keep_cookies({"multiValueHeaders": {"Set-Cookie": [start.headers.get("Set-Cookie", "")]}})
    return account_post(browser, start, action="sign_in", tenant="demo", username=username,
                        password=f"{username}-password")


def shown_secret(page: Page) -> str:
    """The one-time code's key the set-up page shows (base32, its spaces taken out)."""
    found = re.search(r'<code class="totp-secret">([A-Z2-7 ]+)</code>', page.body)
    assert found is not None
    return found.group(1).replace(" ", "")
