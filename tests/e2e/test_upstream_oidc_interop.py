"""authgate's OpenID Connect relying party (authgate.federation.oidc) against an OpenID Provider nobody here wrote:
panva's oidc-provider, certified by the OpenID Foundation (tests/e2e/oidc_provider/provider.mjs).

A real HTTP client goes through the provider's login page; the redirect back to authgate's callback is captured and
handed to `finish`, which redeems the code (client_secret_basic, PKCE), validates the ID token with the provider's
published keys, reads UserInfo (oidc-provider puts only `sub` in an ID token that comes with an access token) and
returns the UpstreamIdentity. Then each attack, with material from the real provider: its genuine tokens for another
client or another sign-in, a second real provider for the mix-up, and forgeries of its tokens.
"""

from __future__ import annotations

import base64
import json
import secrets
import time
from collections.abc import Iterator
from typing import Any

import pytest

from authgate.federation.errors import UpstreamRefused
from authgate.federation.oidc.discovery import discover
from authgate.federation.oidc.id_token import validate
from authgate.federation.oidc.logout import UpstreamLogout, end_session_url, verify_logout_token
from authgate.federation.oidc.sign_in import finish, start
from authgate.federation.upstream import UpstreamIdentity
from authgate.identity_providers.model import IdentityProvider
from tests.document_server import DocumentServer, document_server
from tests.e2e.upstream_oidc_support import (
    CLIENT_ID,
    CLIENT_SECRET,
    POST_LOGOUT_URI,
    REDIRECT_URI,
    Browser,
    UpstreamProvider,
    act_as_relying_party,
    client,
    oidc_provider,
)
from tests.log_hygiene import LogCapture, leaks

pytestmark = pytest.mark.e2e
OTHER_CLIENT = "another-relying-party"


class Pending:
    """One sign-in's secrets, as the interaction keeps them between start and finish."""

    def __init__(self) -> None:
        self.state = secrets.token_urlsafe(24)
        self.nonce = secrets.token_urlsafe(24)
        self.verifier = secrets.token_urlsafe(48)


@pytest.fixture(scope="module")
def receiver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    """An HTTPS server for the provider's back-channel logout calls; its CA and certificate serve the providers too."""
    with document_server(tmp_path_factory.mktemp("tls")) as server:
        yield server


def _provider(receiver: DocumentServer) -> Any:
    directory = receiver.ca.parent
    return oidc_provider(receiver.ca, directory / "server.pem", directory / "server.key", [
        client(backchannel_logout_uri=receiver.url("/bcl"), backchannel_logout_session_required=True),
        client(OTHER_CLIENT, "another-secret-0123456789")])


@pytest.fixture(scope="module")
def idp_a(receiver: DocumentServer) -> Iterator[UpstreamProvider]:
    with _provider(receiver) as provider:
        yield provider


@pytest.fixture(scope="module")
def idp_b(receiver: DocumentServer) -> Iterator[UpstreamProvider]:
    with _provider(receiver) as provider:
        yield provider


@pytest.fixture(autouse=True)
def relying_party(receiver: DocumentServer, monkeypatch: pytest.MonkeyPatch, aws: None) -> None:
    """authgate's side: the test CA trusted, loopback allowed (the local stack's exception), a sealing key."""
    act_as_relying_party(receiver.ca, monkeypatch)


def record(provider: UpstreamProvider, client_id: str = CLIENT_ID, secret: str = CLIENT_SECRET) -> IdentityProvider:
    from authgate.federation import secrets as sealing

    return IdentityProvider("demo", provider.issuer, idp_id="democorp", protocol="oidc", label="Democorp",
                            sign_in=True, client_id=client_id,
                            client_secret=sealing.seal("demo", provider.issuer, "client_secret", secret))


def sign_in(provider: UpstreamProvider, login: str, pending: Pending, idp: IdentityProvider | None = None,
            **asked: Any) -> dict[str, str]:
    idp = idp or record(provider)
    url = start(idp, redirect_uri=REDIRECT_URI, state=pending.state, nonce=pending.nonce,
                code_verifier=pending.verifier, **asked)
    return Browser(provider).sign_in(url, login)


def finished(idp: IdentityProvider, params: dict[str, str], pending: Pending, **kwargs: Any) -> UpstreamIdentity:
    return finish(idp, params=params, redirect_uri=REDIRECT_URI, expected_state=pending.state, nonce=pending.nonce,
                  code_verifier=pending.verifier, **kwargs)


def refused(idp: IdentityProvider, params: dict[str, str], pending: Pending) -> tuple[str, str]:
    with pytest.raises(UpstreamRefused) as caught:
        finished(idp, params, pending)
    return caught.value.reason, caught.value.internal


def claims_of(token: str) -> dict[str, Any]:
    body = token.split(".")[1]
    return dict(json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))))


# -- a sign-in, as each account --

def test_a_sign_in_gives_the_upstream_identity(idp_a: UpstreamProvider) -> None:
    pending = Pending()
    params = sign_in(idp_a, "carol", pending)
    assert params["state"] == pending.state and params["iss"] == idp_a.issuer  # RFC 9207, sent by oidc-provider
    with LogCapture() as capture:
        got = finished(record(idp_a), params, pending)
    assert leaks(capture.lines, {CLIENT_SECRET, params["code"], pending.verifier, got.id_token}) == []
    assert got._replace(id_token="", auth_time=0, session_id="") == UpstreamIdentity(
        "demo", idp_a.issuer, "carol", "carol@democorp.example", True, "Carol Danvers", (), "urn:democorp:pwd",
        ("pwd",))
    assert abs(got.auth_time - time.time()) < 60 and got.session_id
    assert claims_of(got.id_token)["sid"] == got.session_id


def test_an_unverified_email_stays_unverified(idp_a: UpstreamProvider) -> None:
    pending = Pending()
    got = finished(record(idp_a), sign_in(idp_a, "dave", pending), pending)
    assert (got.subject, got.email, got.email_verified) == ("dave", "dave@democorp.example", False)


def test_a_second_factor_upstream_arrives_as_its_acr_and_amr(idp_a: UpstreamProvider) -> None:
    pending = Pending()
    got = finished(record(idp_a), sign_in(idp_a, "erin", pending, acr_values="urn:democorp:mfa", max_age=300),
                   pending, max_age=300)
    assert (got.subject, got.acr, got.amr) == ("erin", "urn:democorp:mfa", ("pwd", "otp"))


def test_client_secret_post_is_refused_by_a_basic_only_client_so_basic_it_is(idp_a: UpstreamProvider) -> None:
    """The provider registered authgate for client_secret_basic: a wrong secret is its invalid_client."""
    pending = Pending()
    params = sign_in(idp_a, "carol", pending)
    assert refused(record(idp_a, secret="not-the-secret"), params, pending) == (
        "token_refused", "HTTP 401, error 'invalid_client'")


# -- attacks, with the real provider's material --

def test_a_state_that_is_not_this_browser_s_is_refused(idp_a: UpstreamProvider) -> None:
    pending, other = Pending(), Pending()
    params = sign_in(idp_a, "carol", other)
    assert refused(record(idp_a), params, pending)[0] == "state_mismatch"


def test_a_nonce_that_is_not_this_sign_in_s_is_refused(idp_a: UpstreamProvider) -> None:
    """The code of a sign-in whose request carried another nonce (an injected code)."""
    pending = Pending()
    params = sign_in(idp_a, "carol", pending)
    pending.nonce = secrets.token_urlsafe(24)
    assert refused(record(idp_a), params, pending) == ("nonce_mismatch", "the ID token's nonce is not this sign-in's")


def test_a_mix_up_is_refused_by_iss_and_by_state(idp_a: UpstreamProvider, idp_b: UpstreamProvider) -> None:
    """A sign-in went to IdP A; IdP B's genuine response comes back. With B's state it is not this browser's;
    with A's state copied in (B's operator saw A's request), B's iss is not A's (RFC 9207 2.4)."""
    to_a, to_b = Pending(), Pending()
    start(record(idp_a), redirect_uri=REDIRECT_URI, state=to_a.state, nonce=to_a.nonce, code_verifier=to_a.verifier)
    from_b = sign_in(idp_b, "carol", to_b)
    assert refused(record(idp_a), from_b, to_a)[0] == "state_mismatch"
    assert refused(record(idp_a), {**from_b, "state": to_a.state}, to_a) == (
        "issuer_mismatch", f"the response's iss '{idp_b.issuer}' is not '{idp_a.issuer}' (RFC 9207 2.4)")


def test_an_id_token_from_another_idp_is_refused(idp_a: UpstreamProvider, idp_b: UpstreamProvider) -> None:
    pending = Pending()
    token = finished(record(idp_b), sign_in(idp_b, "carol", pending), pending).id_token
    idp = record(idp_a)
    with pytest.raises(UpstreamRefused) as caught:
        validate(idp, discover(idp), token, nonce=pending.nonce, now=int(time.time()))
    assert caught.value.reason == "id_token_signature_invalid"  # B's kid is not among A's keys


def test_an_id_token_for_another_client_is_refused(idp_a: UpstreamProvider) -> None:
    """The provider's genuine ID token for another relying party: its aud is not authgate's client."""
    pending = Pending()
    other = record(idp_a, OTHER_CLIENT, "another-secret-0123456789")
    token = finished(other, sign_in(idp_a, "carol", pending, idp=other), pending).id_token
    idp = record(idp_a)
    with pytest.raises(UpstreamRefused) as caught:
        validate(idp, discover(idp), token, nonce=pending.nonce, now=int(time.time()))
    assert (caught.value.reason, caught.value.internal) == (
        "id_token_audience_invalid", f"aud '{OTHER_CLIENT}' does not name '{CLIENT_ID}'")


def test_an_expired_or_unsigned_or_altered_id_token_is_refused(idp_a: UpstreamProvider) -> None:
    pending = Pending()
    token = finished(record(idp_a), sign_in(idp_a, "carol", pending), pending).id_token
    idp = record(idp_a)
    provider = discover(idp)
    exp = claims_of(token)["exp"]

    def reason(candidate: str, now: int) -> str:
        with pytest.raises(UpstreamRefused) as caught:
            validate(idp, provider, candidate, nonce=pending.nonce, now=now)
        return caught.value.reason

    assert reason(token, exp + 121) == "id_token_expired"
    head, body, _ = token.split(".")
    none = base64.urlsafe_b64encode(json.dumps({"alg": "none"}).encode()).rstrip(b"=").decode()
    assert reason(f"{none}.{body}.", int(time.time())) == "id_token_algorithm_refused"
    forged = claims_of(token) | {"sub": "mallory"}
    altered = base64.urlsafe_b64encode(json.dumps(forged).encode()).rstrip(b"=").decode()
    assert reason(f"{head}.{altered}.{token.split('.')[2]}", int(time.time())) == "id_token_signature_invalid"


# -- sign-out, both ways --

def test_rp_initiated_logout_sends_a_back_channel_logout_token(idp_a: UpstreamProvider,
                                                               receiver: DocumentServer) -> None:
    pending = Pending()
    browser = Browser(idp_a)
    idp = record(idp_a)
    url = start(idp, redirect_uri=REDIRECT_URI, state=pending.state, nonce=pending.nonce,
                code_verifier=pending.verifier)
    got = finished(idp, browser.sign_in(url, "carol"), pending)
    receiver.posts.clear()
    logout = end_session_url(idp, discover(idp), id_token_hint=got.id_token, post_logout_redirect_uri=POST_LOGOUT_URI,
                             state="bye")
    assert logout is not None
    assert browser.log_out(logout) == f"{POST_LOGOUT_URI}?state=bye"
    deadline = time.monotonic() + 10
    while not receiver.posts and time.monotonic() < deadline:
        time.sleep(0.1)
    [(path, content_type, body)] = receiver.posts
    assert (path, content_type) == ("/bcl", "application/x-www-form-urlencoded")
    token = body.decode().removeprefix("logout_token=")
    assert verify_logout_token(idp, discover(idp), token, now=int(time.time())) == UpstreamLogout(
        idp_a.issuer, "carol", got.session_id)
    with pytest.raises(UpstreamRefused) as caught:
        verify_logout_token(idp, discover(idp), token, now=int(time.time()))
    assert caught.value.reason == "logout_token_replayed"


def test_the_provider_s_discovery_is_what_the_relying_party_reads(idp_a: UpstreamProvider) -> None:
    provider = discover(record(idp_a))
    assert (provider.issuer, provider.client_auth, provider.iss_parameter, provider.backchannel_logout) == (
        idp_a.issuer, "client_secret_basic", True, True)
    assert provider.end_session_endpoint == f"{idp_a.issuer}/session/end"
