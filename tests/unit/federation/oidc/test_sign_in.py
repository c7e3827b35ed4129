"""federation.oidc.sign_in: start and finish against the scripted provider, and a mix-up caught two ways."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from authgate.federation.errors import UpstreamRefused
from authgate.federation.oidc.sign_in import finish, start
from authgate.federation.upstream import UpstreamIdentity
from tests.document_server import DocumentServer
from tests.upstream_oidc import (
    CLIENT_ID,
    CODE,
    CODE_VERIFIER,
    NONCE,
    REDIRECT_URI,
    STATE,
    ScriptedProvider,
    basic_credentials,
)


def test_start_then_finish_gives_the_person_the_provider_vouches_for(op: ScriptedProvider) -> None:
    idp = op.idp()
    url = start(idp, redirect_uri=REDIRECT_URI, state=STATE, nonce=NONCE, code_verifier=CODE_VERIFIER)
    assert dict(parse_qsl(urlsplit(url).query))["client_id"] == CLIENT_ID
    token = op.id_token(sid="upstream-session-1", acr="urn:democorp:mfa", amr=["pwd", "otp"])
    op.answer_token(token)
    got = finish(idp, params={"code": CODE, "state": STATE, "iss": op.issuer}, redirect_uri=REDIRECT_URI,
                 expected_state=STATE, nonce=NONCE, code_verifier=CODE_VERIFIER)
    assert got == UpstreamIdentity("demo", op.issuer, "carol-upstream-1", "carol@democorp.example", True,
                                   "Carol Upstream", (), "urn:democorp:mfa", ("pwd", "otp"), 0,
                                   "upstream-session-1", token)
    [(form, headers)] = op.token_requests()
    assert (form["code"], form["code_verifier"], basic_credentials(headers)[0]) == (CODE, CODE_VERIFIER, CLIENT_ID)


def test_a_mix_up_is_refused_by_iss_and_by_the_state_bound_to_the_idp(op: ScriptedProvider,
                                                                       trusted: DocumentServer) -> None:
    """IdP B's response (its code, its state, its iss) presented where the sign-in went to IdP A: the response's
    iss is B's (RFC 9207); without iss, B's state is not the one A's pending sign-in holds; no code is redeemed."""
    idp_b = ScriptedProvider(trusted, "idp-b")
    idp_a = op.idp()
    start(idp_a, redirect_uri=REDIRECT_URI, state=STATE, nonce=NONCE, code_verifier=CODE_VERIFIER)
    for params, reason in (({"code": CODE, "state": STATE, "iss": idp_b.issuer}, "issuer_mismatch"),
                           ({"code": CODE, "state": "state-of-the-sign-in-with-b"}, "state_mismatch")):
        with pytest.raises(UpstreamRefused) as caught:
            finish(idp_a, params=params, redirect_uri=REDIRECT_URI, expected_state=STATE, nonce=NONCE,
                   code_verifier=CODE_VERIFIER)
        assert caught.value.reason == reason
    assert trusted.posts == []


def test_apple_s_name_comes_from_the_form_post(op: ScriptedProvider) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    from authgate.federation import secrets

    pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    del op.metadata["userinfo_endpoint"]  # Apple has none: the name comes with the code, once
    op.publish()
    idp = op.idp(preset="apple", client_secret="", apple_team_id="TEAM123456", apple_key_id="KEY1234567",
                 apple_private_key=secrets.seal("demo", op.issuer, "apple_private_key", pem))
    op.answer_token(op.id_token(name=None, email_verified="true"))
    got = finish(idp, params={"code": CODE, "state": STATE, "user": '{"name":{"firstName":"Carol","lastName":"A"}}'},
                 redirect_uri=REDIRECT_URI, expected_state=STATE, nonce=NONCE, code_verifier=CODE_VERIFIER)
    assert (got.name, got.email_verified) == ("Carol A", True)
    [(form, headers)] = op.token_requests()
    assert form["client_id"] == CLIENT_ID and form["client_secret"].count(".") == 2 and "Authorization" not in headers
