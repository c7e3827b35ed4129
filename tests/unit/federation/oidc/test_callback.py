"""federation.oidc.callback: state first, then RFC 9207 iss, then an error response, then the code."""

from __future__ import annotations

import pytest

from authgate.federation.errors import UpstreamRefused
from authgate.federation.oidc.callback import code_from
from authgate.federation.oidc.discovery import Provider

PROVIDER = Provider("https://idp-a.example", "https://idp-a.example/authorize", "https://idp-a.example/token",
                    "https://idp-a.example/jwks")
STATE = "state-of-this-browser"


def refusal(params: dict[str, str], provider: Provider = PROVIDER) -> tuple[str, str]:
    with pytest.raises(UpstreamRefused) as caught:
        code_from(params, provider=provider, expected_state=STATE)
    return caught.value.reason, caught.value.internal


def test_the_code_of_a_response_to_this_request() -> None:
    assert code_from({"code": "c1", "state": STATE}, provider=PROVIDER, expected_state=STATE) == "c1"
    assert code_from({"code": "c1", "state": STATE, "iss": PROVIDER.issuer}, provider=PROVIDER,
                     expected_state=STATE) == "c1"


def test_a_state_that_is_not_this_browser_s_is_refused_before_anything_else() -> None:
    assert refusal({"code": "c1", "state": "another"}) == ("state_mismatch", ("the response's state is not the pending "
                                                                             "sign-in's"))
    assert refusal({"code": "c1"}) == ("state_mismatch", "the response has no state")
    assert refusal({"error": "access_denied", "iss": "https://evil.example"}) == (
        "state_mismatch", "the response has no state")
    with pytest.raises(UpstreamRefused):
        code_from({"code": "c1", "state": ""}, provider=PROVIDER, expected_state="")


def test_a_mix_up_is_caught_by_the_iss_of_the_response() -> None:
    """RFC 9207 2.4: IdP B's response (its iss) presented to the request that went to IdP A."""
    assert refusal({"code": "c1", "state": STATE, "iss": "https://idp-b.example"}) == (
        "issuer_mismatch", "the response's iss 'https://idp-b.example' is not 'https://idp-a.example' (RFC 9207 2.4)")
    always = PROVIDER._replace(iss_parameter=True)
    assert refusal({"code": "c1", "state": STATE}, always) == (
        "issuer_missing", "the provider always sends iss (RFC 9207 3) and this response has none")


def test_an_error_response_is_refused_and_a_denial_is_told_apart() -> None:
    assert refusal({"error": "access_denied", "error_description": "no", "state": STATE}) == (
        "upstream_denied", "'access_denied': 'no'")
    assert refusal({"error": "server_error", "state": STATE, "iss": PROVIDER.issuer}) == (
        "upstream_error", "'server_error': ''")
    assert refusal({"state": STATE}) == ("code_missing", "the response has no code")
