"""The DynamoDB calls of each request of a federated sign-in (docs/federation.md, "What it costs"; issue 39's budget:
no more than a password sign-in's 9 in all), warm: the button, the IdP's answer at the callback, and the page it comes
back to -- for a person signing in again and for one provisioned on the spot. The pending sign-in lives in the
browser's cookie (no write at the button, no spend at the callback); the button's client and tenant and the
answer's client, tenant and link each ride on one BatchGetItem.
"""

from __future__ import annotations

from typing import Any

import pytest

from bench.dynamodb_calls import counting
from tests.demo import WEB_REDIRECT
from tests.functional import upstream_support as flow
from tests.functional.authorize_support import Browser, headers_of, redirect_of
from tests.upstream_oidc import ScriptedProvider

# Each request's operations, in order: the button, the IdP's answer, back on the page.
BUTTON = ["BatchGetItem"]  # the client and its tenant (the IdP's record and the tenant's buttons are warm)
ANSWER = ["BatchGetItem"]  # the address's failed-answer counters (the throttle)
# The client, its tenant and the identity's link; the user; the session; the consent; the session bound; the code.
RETURNING = ["BatchGetItem", "GetItem", "PutItem", "UpdateItem", "UpdateItem", "PutItem"]
# The client, its tenant and the (absent) link; who claims the email; the user and its link in one transaction; ...
PROVISIONED = ["BatchGetItem", "Query", "TransactWriteItems", "PutItem", "UpdateItem", "UpdateItem", "PutItem"]
COOKIE = "authgate_upstream="
KEPT = "; HttpOnly; SameSite=Lax; Path=/; Max-Age=600"
CLEARED = "authgate_upstream=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0"


def _sign_in(browser: Browser, provider: ScriptedProvider, subject: str, email: str) -> list[list[str]]:
    """One whole sign-in in `browser`: each request's DynamoDB operations."""
    page = flow.sign_in_page(browser)
    with counting() as button:
        onward, query = flow.choose(browser, page, "idp-a")
    kept = headers_of(onward)["Set-Cookie"]
    assert kept.startswith(COOKIE) and kept.endswith(KEPT)
    assert len(kept) < 4096  # a browser keeps it (RFC 6265 6.1)
    with counting() as answered:
        back = flow.answer(browser, flow.oidc_answer(provider, query, sub=subject, email=email))
    assert back["statusCode"] == 200, back["body"][:500]
    assert headers_of(back)["Set-Cookie"] == CLEARED
    with counting() as resumed:
        done = flow.back_to_flow(browser, back)
    assert done["statusCode"] == 303
    assert redirect_of(done).base == WEB_REDIRECT
    return [button.operations, answered.operations, resumed.operations]


@pytest.mark.slow  # three whole sign-ins
def test_a_federated_sign_in_makes_at_most_a_password_sign_ins_calls(invoke: Any, provider: ScriptedProvider) -> None:
    flow.offer(provider, create_users=True)
    _sign_in(Browser(invoke), provider, "warm-up", "warm@elsewhere.example")  # discovery, keys, the caches
    returning = _sign_in(Browser(invoke), provider, "warm-up", "warm@elsewhere.example")
    provisioned = _sign_in(Browser(invoke), provider, "new-person", "new@elsewhere.example")
    assert returning == [BUTTON, ANSWER, RETURNING]
    assert provisioned == [BUTTON, ANSWER, PROVISIONED]
    assert sum(map(len, returning)) == 8
    assert sum(map(len, provisioned)) == 9
