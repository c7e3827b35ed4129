"""OpenID Connect end to end through a real `authgate serve`, with relying parties nobody here wrote:
panva's openid-client (Node, OpenID-certified) and Authlib's OAuth2Session with its OpenID Connect
ID-token validation (Python). Each runs discovery, the code flow with PKCE and nonce, the ID token
validated by the library, userinfo, a refresh with a new ID token, a prompt=none silent
re-authentication with the session cookie, RP-initiated logout, and prompt=none again:
login_required.

openid-client comes from npm (tests/e2e/js/package-lock.json, `npm ci` in `make test`).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from tests.e2e.flows import hidden_fields

pytestmark = [pytest.mark.e2e]

JS = Path(__file__).with_name("js")
WEB_REDIRECT = "http://127.0.0.1:8765/callback"
LOGOUT_URI = "http://127.0.0.1:8765/"
SCOPE = "openid profile email offline_access charges:read"
ALICE = "usr_demoalice0000000000000"
USERINFO = {"sub": ALICE, "name": "Alice Example", "preferred_username": "alice", "email": "alice@demo.example",
            "email_verified": True}


def test_openid_client_runs_the_whole_openid_connect_flow(local_stack: Any) -> None:
    if not (JS / "node_modules" / "openid-client").is_dir():
        pytest.fail("openid-client is not installed: run `npm ci --prefix tests/e2e/js` (make test does)")
    env = {"ISSUER": local_stack.base_url, "REDIRECT_URI": WEB_REDIRECT, "LOGOUT_URI": LOGOUT_URI,
           "PATH": "/usr/bin:/bin:/usr/local/bin"}
    run = subprocess.run(["node", str(JS / "oidc_flow.mjs")], env=env, capture_output=True, text=True, timeout=120,
                         check=False)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert "error" not in result, (result, local_stack.log(40))
    assert result["steps"] == ["discovery", "code", "userinfo", "refresh", "silent", "logout", "after_logout"]
    base = local_stack.base_url
    assert result["discovery"] == {"issuer": base, "userinfo": f"{base}/oauth/userinfo",
                                   "end_session": f"{base}/oauth/logout"}
    assert result["code"] == {"sub": ALICE, "nonce_checked": True, "acr": "password", "amr": ["pwd"],
                              "has_sid": True, "has_refresh": True, "session_cookie": True}
    assert {k: v for k, v in result["userinfo"].items() if k != "updated_at"} == USERINFO
    assert result["refresh"] == {"same_sub": True, "same_auth_time": True, "nonce": None}
    assert result["silent"] == {"same_sid": True, "same_auth_time": True}
    assert result["logout"] == {"status": 302, "location": True, "session_cookie": False}
    assert result["after_logout"] == {"error": "login_required"}


def test_authlib_runs_the_whole_openid_connect_flow(local_stack: Any) -> None:
    from authlib.common.security import generate_token
    from authlib.integrations.requests_client import OAuth2Session
    from authlib.jose import JsonWebKey
    from authlib.jose import jwt as authlib_jwt
    from authlib.oauth2.rfc7636 import create_s256_code_challenge
    from authlib.oidc.core import CodeIDToken

    base = local_stack.base_url
    metadata = requests.get(f"{base}/.well-known/openid-configuration", timeout=10).json()
    keys = JsonWebKey.import_key_set(requests.get(metadata["jwks_uri"], timeout=10).json())
    browser = requests.Session()

    def rp() -> OAuth2Session:
        return OAuth2Session("demo-web", "demo-web-secret", scope=SCOPE, redirect_uri=WEB_REDIRECT,
                             token_endpoint_auth_method="client_secret_basic")

    def authorize(session: OAuth2Session, **extra: str) -> tuple[str, str, str]:
        verifier, nonce = generate_token(48), generate_token(20)
        url, _state = session.create_authorization_url(
            metadata["authorization_endpoint"], nonce=nonce, code_challenge=create_s256_code_challenge(verifier),
            code_challenge_method="S256", **extra)
        return url, verifier, nonce

    def id_claims(token: dict[str, Any], nonce: str | None) -> Any:
        claims = authlib_jwt.decode(token["id_token"], keys, claims_cls=CodeIDToken,
                                    claims_options={"iss": {"value": base}, "aud": {"value": "demo-web"}},
                                    claims_params={"nonce": nonce, "client_id": "demo-web",
                                                   "access_token": token["access_token"]} if nonce else
                                    {"client_id": "demo-web", "access_token": token["access_token"]})
        claims.validate()  # iss, aud, exp, iat, nonce, at_hash, azp (OIDC Core 3.1.3.7)
        return claims

    session = rp()
    url, verifier, nonce = authorize(session)
    page = browser.get(url, allow_redirects=False)
    assert page.status_code == 200, page.text[:300]
    fields = {**hidden_fields(page.text), "username": "alice", "password": "alice-password", "decision": "approve"}
    submitted = browser.post(metadata["authorization_endpoint"], data=fields, allow_redirects=False)
    assert submitted.status_code == 303
    token = session.fetch_token(metadata["token_endpoint"], authorization_response=submitted.headers["Location"],
                                code_verifier=verifier)
    claims = id_claims(token, nonce)
    assert (claims["sub"], claims["acr"], claims["amr"]) == (ALICE, "password", ["pwd"])

    info = session.get(metadata["userinfo_endpoint"]).json()
    assert {k: v for k, v in info.items() if k != "updated_at"} == USERINFO

    refreshed = session.refresh_token(metadata["token_endpoint"], refresh_token=token["refresh_token"])
    again = id_claims(refreshed, None)
    assert (again["sub"], again["auth_time"], "nonce" in again) == (ALICE, claims["auth_time"], False)

    quiet = rp()
    url, verifier, nonce = authorize(quiet, prompt="none")
    answer = browser.get(url, allow_redirects=False)
    assert answer.status_code == 302 and "code=" in answer.headers["Location"]
    silent = quiet.fetch_token(metadata["token_endpoint"], authorization_response=answer.headers["Location"],
                               code_verifier=verifier)
    assert id_claims(silent, nonce)["sid"] == claims["sid"]

    bye = browser.get(metadata["end_session_endpoint"], allow_redirects=False,
                      params={"id_token_hint": token["id_token"], "post_logout_redirect_uri": LOGOUT_URI,
                              "state": "bye"})
    assert (bye.status_code, bye.headers["Location"]) == (302, f"{LOGOUT_URI}?state=bye")

    url, _, _ = authorize(rp(), prompt="none")
    refused = browser.get(url, allow_redirects=False)
    assert refused.status_code == 302
    assert parse_qs(urlsplit(refused.headers["Location"]).query)["error"] == ["login_required"]
