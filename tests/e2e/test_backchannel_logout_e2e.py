"""OpenID Connect Back-Channel Logout 1.0 through a real `authgate serve`: a relying party's HTTPS receiver
on 127.0.0.1 (the test CA, trusted through SSL_CERT_FILE) gets a logout token after RP-initiated logout,
and PyJWT verifies it against the published JWK Set; the demo app's outbox lists the delivery.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs

import jwt
import pytest
import requests

from tests.document_server import DocumentServer, document_server
from tests.e2e.admin_commands import admin
from tests.e2e.conftest import LocalStack, running_stack
from tests.e2e.flows import hidden_fields

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ALICE = "usr_demoalice0000000000000"
EVENT = "http://schemas.openid.net/event/backchannel-logout"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalStack, DocumentServer]]:
    tmp: Path = tmp_path_factory.mktemp("backchannel")
    with document_server(tmp) as receiver, running_stack(
            tmp / "serve", "--allow-loopback-outbound", "--callback-port", "0",
            env_extra={"SSL_CERT_FILE": str(receiver.ca)}) as serve:
        yield serve, receiver


def signed_in(base: str, redirect_uri: str) -> tuple[requests.Session, str]:
    """alice signs in to demo-web (code flow with PKCE); (the browser with its session cookie, the ID token)."""

    from authlib.common.security import generate_token
    from authlib.integrations.requests_client import OAuth2Session
    from authlib.oauth2.rfc7636 import create_s256_code_challenge

    browser = requests.Session()
    rp = OAuth2Session("demo-web", "demo-web-secret", scope="openid charges:read", redirect_uri=redirect_uri,
                       token_endpoint_auth_method="client_secret_basic")
    verifier = generate_token(48)
    url, _ = rp.create_authorization_url(f"{base}/oauth/authorize", nonce=generate_token(20),
                                         code_challenge=create_s256_code_challenge(verifier),
                                         code_challenge_method="S256")
    page = browser.get(url, allow_redirects=False, timeout=10)
    assert page.status_code == 200, page.text[:300]
    fields = hidden_fields(page.text)
    fields.update(username="alice", password="alice-password", decision="approve")
    submitted = browser.post(f"{base}/oauth/authorize", data=fields, allow_redirects=False, timeout=10)
    assert submitted.status_code == 303, submitted.text[:300]
    token = rp.fetch_token(f"{base}/oauth/token", authorization_response=submitted.headers["Location"],
                           code_verifier=verifier)
    return browser, token["id_token"]


def test_rp_initiated_logout_posts_a_verifiable_logout_token(stack: tuple[LocalStack, DocumentServer]) -> None:
    serve, receiver = stack
    base, demo = serve.base_url, serve.demo_app
    assert demo is not None
    uri = receiver.url("/backchannel")
    done = admin(serve, "clients", "update", "demo-web", "--backchannel-logout-uri", uri,
                 "--backchannel-logout-session-required", "--json")
    assert done.returncode == 0, done.stderr
    metadata = requests.get(f"{base}/.well-known/openid-configuration", timeout=10).json()
    assert (metadata["backchannel_logout_supported"], metadata["backchannel_logout_session_supported"]) == (
        True, True)

    browser, id_token = signed_in(base, f"{demo}/callback")
    sid = jwt.decode(id_token, options={"verify_signature": False})["sid"]
    bye = browser.get(metadata["end_session_endpoint"], params={"id_token_hint": id_token}, allow_redirects=False,
                      timeout=10)
    assert bye.status_code == 200 and "signed out" in bye.text.lower()

    deadline = time.monotonic() + 20
    while not receiver.posts and time.monotonic() < deadline:
        time.sleep(0.1)
    assert receiver.posts, serve.log(60)
    ((path, content_type, body),) = receiver.posts
    assert (path, content_type) == ("/backchannel", "application/x-www-form-urlencoded")
    (token,) = parse_qs(body.decode())["logout_token"]
    # Verified by PyJWT against the JWKS the discovery document names (BCL 2.6).
    key = jwt.PyJWKClient(metadata["jwks_uri"], cache_jwk_set=False).get_signing_key_from_jwt(token)
    header = jwt.get_unverified_header(token)
    claims = jwt.decode(token, key.key, algorithms=[header["alg"]], audience="demo-web", issuer=base,
                        options={"require": ["iss", "aud", "iat", "exp", "jti", "events"]})
    assert header["typ"] == "logout+jwt"
    assert (claims["sub"], claims["sid"], claims["events"], "nonce" in claims) == (ALICE, sid, {EVENT: {}}, False)

    # The outcome is written to the outbox after the receiver answered: the post can arrive first.
    deadline = time.monotonic() + 20
    while not (delivered := [e for e in requests.get(f"{demo}/outbox.json", timeout=10).json()
                             if e["kind"] == "backchannel_logout"]) and time.monotonic() < deadline:
        time.sleep(0.1)
    (entry,) = delivered
    assert (entry["client_id"], entry["uri"], entry["sid"], entry["outcome"], entry["logout_token"]) == (
        "demo-web", uri, sid, "delivered", token)
    page = requests.get(f"{demo}/outbox", timeout=10)
    assert page.status_code == 200 and "<strong>backchannel_logout</strong>" in page.text


def test_a_loopback_receiver_is_refused_without_the_local_flag(tmp_path: Path) -> None:
    """The loopback exception is the local stack's flag: without it, registering one is refused in one line."""
    with running_stack(tmp_path / "serve") as serve:
        done = admin(serve, "clients", "update", "demo-web", "--backchannel-logout-uri", "https://127.0.0.1:9/bcl")
    assert (done.returncode, done.stdout, done.stderr.splitlines()[-1]) == (
        2, "", "authgate clients: --backchannel-logout-uri must not point at loopback on this stack")
