"""No input to the authorization endpoint yields a 500, and no redirect leaves the registered URIs."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.demo import CHALLENGE
from tests.functional.authorize_support import (
    Browser,
    headers_of,
    page_of,
    web_params,
)

REGISTERED = ("http://127.0.0.1:8765/callback?", "http://127.0.0.1:8765/spa/callback?",
              "http://127.0.0.1:8765/partner/callback?")
NAMES = ["response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge",
         "code_challenge_method", "prompt", "nonce"]
VALUES = st.one_of(
    st.sampled_from(["code", "token", "demo-web", "demo-spa", "demo-partner", "staging-web",
                     "http://127.0.0.1:8765/callback", "http://127.0.0.1:8765/spa/callback",
                     "charges:read", "charges:refund", "S256", "plain", CHALLENGE, ""]),
    st.text(max_size=40),
)
PAIRS = st.lists(st.tuples(st.one_of(st.sampled_from(NAMES), st.text(max_size=10)), VALUES), max_size=10)
RAW = st.text(alphabet=st.characters(codec="ascii"), max_size=120)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def check(result: dict[str, Any], redirect: int = 302) -> None:
    """A page or a redirect to a registered URI (302 from GET, 303 from POST); never a 500."""
    assert result["statusCode"] in (200, redirect, 400), (result["statusCode"], result["body"][:300])
    if result["statusCode"] == redirect:
        assert headers_of(result)["Location"].startswith(REGISTERED)
    else:
        assert headers_of(result)["Content-Type"] == "text/html; charset=utf-8"


@FUZZ
@given(pairs=PAIRS)
def test_no_query_yields_a_500_or_a_foreign_redirect(browser: Browser, pairs: list[tuple[str, str]]) -> None:
    check(browser.get(pairs))


@FUZZ
@given(raw=RAW)
def test_no_raw_query_string_yields_a_500(browser: Browser, raw: str) -> None:
    check(browser.get_raw(raw))


@FUZZ
@given(fields=PAIRS, keep_state=st.booleans())
def test_no_form_post_yields_a_500(browser: Browser, fields: list[tuple[str, str]], keep_state: bool) -> None:
    extra: list[tuple[str, str]] = []
    if keep_state:
        extra = list(page_of(browser.get(web_params())).hidden().items())
    check(browser.post(extra + fields), redirect=303)


@FUZZ
@given(body=st.binary(max_size=200))
def test_no_form_body_yields_a_500(browser: Browser, body: bytes) -> None:
    check(browser.post([], body=body))
    check(browser.post([], body=urlencode({"request_blob": body.hex()}).encode()))
