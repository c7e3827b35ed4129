"""oauth.token.dpop_proof (RFC 9449 5): the token request's DPoP proof, checked and spent before any grant runs."""

from __future__ import annotations

import pytest

from authgate.clock import ManualClock
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.oauth.token.dpop_proof import token_proof
from tests.demo import ISSUER
from tests.dpop_support import DpopKey
from tests.events import event
from tests.unit.oauth.token.grants.conftest import SERVICE

URL = ISSUER + "/oauth/token"


def request(proofs: list[str]) -> Request:
    e = event("POST", "/oauth/token")
    e["multiValueHeaders"] = {"DPoP": proofs} if proofs else {}
    return Request.from_event(e)


def test_no_proof_is_a_bearer_request_unless_the_client_registered_dpop(aws: None, clock: ManualClock) -> None:
    assert token_proof(request([]), SERVICE, int(clock())) is None
    with pytest.raises(ApiError) as info:
        token_proof(request([]), SERVICE._replace(dpop_bound_access_tokens=True), int(clock()))
    assert (info.value.code, info.value.status, info.value.detail) == (
        "invalid_dpop_proof", 400, "This client's access tokens must be DPoP-bound: send a DPoP proof (RFC 9449 5.2).")


def test_a_good_proof_gives_its_key_once(aws: None, clock: ManualClock) -> None:
    key = DpopKey()
    proof = key.proof("POST", URL, iat=int(clock()))
    checked = token_proof(request([proof]), SERVICE, int(clock()))
    assert checked is not None and checked.jkt == key.jkt
    with pytest.raises(ApiError) as info:  # its jti is spent
        token_proof(request([proof]), SERVICE, int(clock()))
    assert (info.value.code, info.value.detail) == (
        "invalid_dpop_proof", "The DPoP proof was already used (jti); make a new proof for each request.")


def test_a_proof_for_another_uri_or_two_proofs_are_refused(aws: None, clock: ManualClock) -> None:
    key = DpopKey()
    with pytest.raises(ApiError) as info:
        token_proof(request([key.proof("POST", ISSUER + "/oauth/par", iat=int(clock()))]), SERVICE, int(clock()))
    assert info.value.code == "invalid_dpop_proof" and "htu" in info.value.detail
    with pytest.raises(ApiError) as two:
        token_proof(request([key.proof("POST", URL), key.proof("POST", URL)]), SERVICE, int(clock()))
    assert two.value.detail == "The request carries more than one DPoP header (RFC 9449 4.3)."


def test_with_server_nonces_a_proof_without_one_gets_use_dpop_nonce_and_the_nonce(
        aws: None, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches
    from authgate.tokens import dpop_nonce

    monkeypatch.setenv("AUTHGATE_DPOP_NONCES", "true")
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "n" * 32)
    caches.reset()
    now = int(clock())
    with pytest.raises(ApiError) as info:
        token_proof(request([DpopKey().proof("POST", URL, iat=now)]), SERVICE, now)
    nonce = dpop_nonce.current(now)
    assert (info.value.code, info.value.headers) == ("use_dpop_nonce", {"DPoP-Nonce": nonce})
    assert token_proof(request([DpopKey().proof("POST", URL, iat=now, nonce=nonce)]), SERVICE, now) is not None
