"""The authorization endpoint's RFC 9449 10 `dpop_jkt` and RFC 8707 `resource`: carried into the code,
checked at the exchange (tests/functional/test_token_dpop.py covers the exchange's refusals)."""

from __future__ import annotations

import pytest

from tests.demo import ISSUER, SECRETS, WEB_REDIRECT
from tests.dpop_support import DpopKey
from tests.functional.authorize_support import Browser, page_of, redirect_of, web_params
from tests.functional.token_support import TokenClient, basic, body_of, claims_of


@pytest.mark.slow
def test_dpop_jkt_and_resource_bind_the_code_end_to_end(browser: Browser, tokens: TokenClient) -> None:
    from tests.demo import VERIFIER

    key = DpopKey()
    page = page_of(browser.get(web_params(dpop_jkt=key.jkt, resource=f"{ISSUER}/charges")))
    code = redirect_of(browser.submit(page)).one("code")
    fields = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", WEB_REDIRECT),
              ("code_verifier", VERIFIER)]
    result = tokens.post(fields, auth=basic("demo-web", SECRETS["demo-web"]),
                         headers=[("DPoP", key.proof("POST", f"{ISSUER}/oauth/token"))])
    body = body_of(result)
    claims = claims_of(body["access_token"])
    assert (result["statusCode"], body["token_type"], claims["cnf"], claims["aud"]) == (
        200, "DPoP", {"jkt": key.jkt}, f"{ISSUER}/charges")


def test_an_unknown_resource_or_a_malformed_dpop_jkt_is_redirected_as_an_error(browser: Browser) -> None:
    redirect = redirect_of(browser.get(web_params(resource="https://elsewhere.example/")))
    assert (redirect.base, redirect.one("error"), redirect.one("state")) == (WEB_REDIRECT, "invalid_target",
                                                                             "xyz-state")
    redirect = redirect_of(browser.get(web_params(dpop_jkt="not-a-thumbprint")))
    assert (redirect.one("error"), redirect.one("error_description")) == (
        "invalid_request", "dpop_jkt must be a base64url SHA-256 JWK thumbprint (RFC 9449 10).")
