"""authgate_cli.local.demo_idp: Demo Corp SSO, the local stack's small OpenID Provider, answer by answer; its ID
tokens checked with PyJWT against its own JWKS."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import jwt
import pytest

from authgate_cli.local.demo_idp import CLIENT_ID, CLIENT_SECRET, PEOPLE, DemoIdp

ISSUER = "http://127.0.0.1:8766"
AUTHGATE = "http://127.0.0.1:3000"
CALLBACK = f"{AUTHGATE}/oauth/federation/callback"
VERIFIER = "v" * 50
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()
REQUEST = {"response_type": "code", "client_id": CLIENT_ID, "redirect_uri": CALLBACK, "scope": "openid email profile",
           "state": "st", "nonce": "nn", "code_challenge": CHALLENGE, "code_challenge_method": "S256"}
BASIC = "Basic " + base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()


@pytest.fixture
def idp() -> DemoIdp:
    return DemoIdp(issuer=ISSUER, authgate=AUTHGATE)


def body(answer: tuple[int, list[tuple[str, str]], bytes]) -> Any:
    return json.loads(answer[2])


def code_for(idp: DemoIdp, person: str = "democorp-carol") -> str:
    status, headers, _ = idp.answer("POST", "/authorize", {}, {**REQUEST, "person": person}, {})
    location = dict(headers)["Location"]
    assert status == 302 and location.startswith(CALLBACK + "?")
    params = dict(parse_qsl(urlsplit(location).query))
    assert (params["state"], params["iss"]) == ("st", ISSUER)
    return params["code"]


def test_discovery_names_its_endpoints_and_its_key(idp: DemoIdp) -> None:
    config = body(idp.answer("GET", "/.well-known/openid-configuration", {}, {}, {}))
    assert (config["issuer"], config["token_endpoint"], config["authorization_response_iss_parameter_supported"]) == (
        ISSUER, f"{ISSUER}/token", True)
    [key] = body(idp.answer("GET", "/jwks", {}, {}, {}))["keys"]
    assert (key["kty"], key["crv"], key["alg"], key["use"]) == ("EC", "P-256", "ES256", "sig") and "d" not in key


def test_its_sign_in_page_lists_the_demo_people(idp: DemoIdp) -> None:
    status, headers, page = idp.answer("GET", "/authorize", REQUEST, {}, {})
    assert status == 200 and dict(headers)["Content-Type"] == "text/html; charset=utf-8"
    for person in PEOPLE:
        assert f'value="{person.sub}"' in page.decode() and person.email in page.decode()


def test_a_code_gives_a_signed_id_token_once(idp: DemoIdp) -> None:
    code = code_for(idp, "democorp-erin")
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK, "code_verifier": VERIFIER}
    status, _, raw = idp.answer("POST", "/token", {}, form, {"authorization": BASIC})
    assert status == 200
    tokens = json.loads(raw)
    key = jwt.PyJWK(body(idp.answer("GET", "/jwks", {}, {}, {}))["keys"][0])
    claims = jwt.decode(tokens["id_token"], key, algorithms=["ES256"], audience=CLIENT_ID, issuer=ISSUER)
    assert {k: claims[k] for k in ("sub", "nonce", "email", "email_verified", "acr", "amr")} == {
        "sub": "democorp-erin", "nonce": "nn", "email": "erin@democorp.example", "email_verified": True,
        "acr": "urn:democorp:mfa", "amr": ["pwd", "otp"]}
    assert idp.answer("POST", "/token", {}, form, {"authorization": BASIC})[0] == 400  # spent
    info = body(idp.answer("GET", "/userinfo", {}, {}, {"authorization": f"Bearer {tokens['access_token']}"}))
    assert info == {"sub": "democorp-erin", "email": "erin@democorp.example", "email_verified": True,
                    "name": "Erin Demo"}


def test_a_wrong_verifier_secret_or_client_is_refused(idp: DemoIdp) -> None:
    form = {"grant_type": "authorization_code", "code": code_for(idp), "redirect_uri": CALLBACK,
            "code_verifier": "w" * 50}
    assert body(idp.answer("POST", "/token", {}, form, {"authorization": BASIC})) == {"error": "invalid_grant"}
    wrong = "Basic " + base64.b64encode(f"{CLIENT_ID}:nope".encode()).decode()
    assert idp.answer("POST", "/token", {}, form, {"authorization": wrong})[0] == 401
    assert idp.answer("GET", "/authorize", {**REQUEST, "redirect_uri": "https://evil.example/cb"}, {}, {})[0] == 400
    status, headers, _ = idp.answer("GET", "/authorize", {**REQUEST, "code_challenge_method": "plain"}, {}, {})
    assert status == 302 and "error=invalid_request" in dict(headers)["Location"]


def test_sign_out_returns_to_authgate_only(idp: DemoIdp) -> None:
    status, headers, _ = idp.answer("GET", "/logout", {"post_logout_redirect_uri": f"{AUTHGATE}/done",
                                                       "state": "s1"}, {}, {})
    assert (status, dict(headers)["Location"]) == (302, f"{AUTHGATE}/done?state=s1")
    assert idp.answer("GET", "/logout", {"post_logout_redirect_uri": "https://evil.example/"}, {}, {})[0] == 200
