"""oauth.authorization.par.post_par (RFC 9126 2): the push authenticated like the token endpoint, validated like /authorize, stored once."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from authgate.clock import ManualClock
from authgate.errors import ApiError
from authgate.oauth.authorization.par import post_par
from authgate.stores.pushed_requests import PushedRequestStore
from tests.conftest import START
from tests.demo import CHALLENGE, ISSUER, SECRETS, Demo
from tests.dpop_support import DpopKey
from tests.functional.assertion_support import assertion, assertion_fields, demo_fapi_key
from tests.functional.authorize_support import web_params
from tests.unit.oauth.token.form_requests import form_request

REQUEST_URI = re.compile(r"urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}")
CREATED_HEADERS = {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"}
FAPI_REDIRECT = "http://127.0.0.1:8765/fapi/callback"


def push(fields: list[tuple[str, str]], client_id: str | None = "demo-web",
         headers: list[tuple[str, str]] | None = None) -> str:
    """The request_uri of an accepted push (201, exactly these headers and members)."""
    response = post_par(form_request("/oauth/par", fields, client_id=client_id, headers=headers))
    body = json.loads(response.body)
    assert (response.status, response.headers, set(body), body["expires_in"]) == (
        201, CREATED_HEADERS, {"request_uri", "expires_in"}, 60)
    assert REQUEST_URI.fullmatch(body["request_uri"]), body
    return str(body["request_uri"])


def refused(fields: list[tuple[str, str]], client_id: str | None = "demo-web") -> tuple[str, int, str]:
    with pytest.raises(ApiError) as info:
        post_par(form_request("/oauth/par", fields, client_id=client_id))
    return info.value.code, info.value.status, info.value.detail


def without_client_id(fields: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(k, v) for k, v in fields if k != "client_id"]


def test_the_pushed_parameters_are_stored_for_the_client_once(demo: Demo) -> None:
    request_uri = push(without_client_id(web_params()))
    pushed = PushedRequestStore().consume(request_uri, "demo-web")
    assert pushed.client_id == "demo-web"
    assert pushed.params == {k: [v] for k, v in web_params()}  # client_id named by the Basic credentials
    from authgate.single_use.errors import PushedRequestError

    with pytest.raises(PushedRequestError):
        PushedRequestStore().consume(request_uri, "demo-web")


def test_authentication_parameters_are_never_stored(demo: Demo) -> None:
    fields = web_params() + [("client_secret", SECRETS["demo-web"])]
    request_uri = push(fields, client_id=None)  # client_secret_post
    params = PushedRequestStore().consume(request_uri, "demo-web").params
    assert "client_secret" not in params and params["client_id"] == ["demo-web"]


def test_a_public_client_pushes_with_its_client_id(demo: Demo) -> None:
    spa = web_params(client_id=None, redirect_uri="http://127.0.0.1:8765/spa/callback")
    request_uri = push(spa, client_id="demo-spa")
    assert PushedRequestStore().consume(request_uri, "demo-spa").params["client_id"] == ["demo-spa"]


@pytest.mark.parametrize(("extra", "detail"), [
    ([("request_uri", "urn:ietf:params:oauth:request_uri:abc")], "request_uri must not be pushed (RFC 9126 2.1)."),
    ([("request", "eyJhbGciOiJub25lIn0.e30.")],
     ("Request objects (the request parameter, RFC 9101) are not supported; push the authorization parameters "
     "themselves.")),
])
def test_request_uri_and_request_objects_are_refused_before_authentication(demo: Demo, extra: Any,
                                                                           detail: str) -> None:
    assert refused(web_params() + extra, client_id=None) == ("invalid_request", 400, detail)


def test_the_client_must_authenticate(demo: Demo) -> None:
    code, status, _ = refused(web_params(), client_id=None)
    assert (code, status) == ("invalid_client", 401)


@pytest.mark.parametrize(("overrides", "code"), [
    ({"redirect_uri": "https://evil.example/cb"}, "redirect_uri_mismatch"),
    ({"response_type": "token"}, "unsupported_response_type"),
    ({"code_challenge": None}, "invalid_request"),  # a method without a challenge
    ({"scope": "charges:refund"}, "invalid_scope"),  # forbidden by the demo tenant
])
def test_the_request_is_validated_at_push_time(demo: Demo, overrides: dict[str, str | None], code: str) -> None:
    got, status, _ = refused(without_client_id(web_params(**overrides)))
    assert (got, status) == (code, 400)


def test_a_public_client_must_use_pkce(demo: Demo) -> None:
    spa = web_params(client_id=None, redirect_uri="http://127.0.0.1:8765/spa/callback", code_challenge=None,
                     code_challenge_method=None)
    assert refused(spa, client_id="demo-spa") == (
        "invalid_request", 400,
        "Public clients must use PKCE: send code_challenge with code_challenge_method=S256 (RFC 7636).")


def test_a_fapi2_client_pushes_with_its_assertion(demo: Demo, clock: ManualClock) -> None:
    fields = [("response_type", "code"), ("client_id", "demo-fapi"), ("redirect_uri", FAPI_REDIRECT),
              ("scope", "charges:read"), ("state", "s"), ("code_challenge", CHALLENGE),
              ("code_challenge_method", "S256")]
    request_uri = push(fields + assertion_fields(assertion(demo_fapi_key(), "demo-fapi", START)), client_id=None)
    params = PushedRequestStore().consume(request_uri, "demo-fapi").params
    assert "client_assertion" not in params and "client_assertion_type" not in params


def test_a_dpop_proof_binds_the_pushed_request_to_its_key(demo: Demo, clock: ManualClock) -> None:
    key = DpopKey()
    proof = key.proof("POST", f"{ISSUER}/oauth/par", iat=START)
    request_uri = push(without_client_id(web_params()), headers=[("DPoP", proof)])
    assert PushedRequestStore().consume(request_uri, "demo-web").params["dpop_jkt"] == [key.jkt]
    # The same jkt sent as a parameter agrees; another one is refused (RFC 9449 10.1).
    proof = key.proof("POST", f"{ISSUER}/oauth/par", iat=START)
    push(without_client_id(web_params(dpop_jkt=key.jkt)), headers=[("DPoP", proof)])
    proof = key.proof("POST", f"{ISSUER}/oauth/par", iat=START)
    with pytest.raises(ApiError) as info:
        post_par(form_request("/oauth/par", without_client_id(web_params(dpop_jkt=DpopKey().jkt)),
                              client_id="demo-web", headers=[("DPoP", proof)]))
    assert (info.value.code, info.value.detail) == (
        "invalid_dpop_proof", "dpop_jkt does not match the key of the DPoP proof (RFC 9449 10.1).")
