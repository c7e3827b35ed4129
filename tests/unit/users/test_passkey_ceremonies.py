"""users.passkey_ceremonies with py_webauthn, against a software authenticator's real objects: registration and
assertion verified, user verification required, the counter only forward, the RP id never an IP address."""

from __future__ import annotations

import json
import secrets

import pytest

from authgate.users import passkey_ceremonies as ceremonies
from authgate.users.errors import PasskeyRefused, RelyingPartyUnusable, SignCountRegressed
from authgate.users.passkeys import Passkey, amr_of, relying_party_id
from tests.log_hygiene import LogCapture
from tests.webauthn_authenticator import SoftAuthenticator

ORIGIN = "http://localhost:3000"


def enrolled(device: SoftAuthenticator) -> Passkey:
    challenge = secrets.token_bytes(32)
    return ceremonies.verify_registration(credential=device.register(challenge), challenge=challenge,
                                          rp_id="localhost", origin=ORIGIN, tenant_id="demo", username="bob",
                                          name="Laptop", now=1000)


def test_registration_options_ask_for_a_discoverable_verified_passkey() -> None:
    challenge = secrets.token_bytes(32)
    options = json.loads(ceremonies.registration_options(rp_id="localhost", rp_name="authgate", username="bob",
                                                         user_handle=b"user-1", challenge=challenge,
                                                         existing=("AAEC",)))
    assert options["rp"] == {"id": "localhost", "name": "authgate"}
    assert options["challenge"] == ceremonies.base64url.encode(challenge)
    assert options["authenticatorSelection"] == {"residentKey": "required", "requireResidentKey": True,
                                                 "userVerification": "required"}
    assert options["excludeCredentials"] == [{"id": "AAEC", "type": "public-key"}]
    assert (options["attestation"], options["timeout"]) == ("none", 300000)


def test_a_registration_verifies_into_a_passkey() -> None:
    device = SoftAuthenticator(synced=True)
    passkey = enrolled(device)
    assert passkey._replace(public_key="") == Passkey(
        credential_id=device.id, tenant_id="demo", username="bob", public_key="", sign_count=0, name="Laptop",
        created_at=1000, backup_eligible=True, backed_up=True, transports=("internal", "hybrid"),
        aaguid="00010203-0405-0607-0809-0a0b0c0d0e0f")
    assert amr_of(passkey, user_verified=True) == ("swk", "user", "mfa")
    assert amr_of(enrolled(SoftAuthenticator()), user_verified=True) == ("hwk", "user", "mfa")


@pytest.mark.parametrize("change", ["no-user-verification", "other-origin", "other-challenge"])
def test_a_registration_that_does_not_verify_is_refused(change: str) -> None:
    device, challenge = SoftAuthenticator(), secrets.token_bytes(32)
    credential = device.register(challenge, verified=change != "no-user-verification",
                                 origin="https://evil.example" if change == "other-origin" else None)
    expected = secrets.token_bytes(32) if change == "other-challenge" else challenge
    with pytest.raises(PasskeyRefused, match="^the registration does not verify: "):
        ceremonies.verify_registration(credential=credential, challenge=expected, rp_id="localhost", origin=ORIGIN,
                                       tenant_id="demo", username="bob", name="x", now=1)


def test_an_assertion_verifies_and_moves_the_counter_forward() -> None:
    device = SoftAuthenticator()
    passkey = enrolled(device)
    challenge = secrets.token_bytes(32)
    credential = device.assertion(challenge)
    assert ceremonies.credential_id_of(credential) == passkey.credential_id
    asserted = ceremonies.verify_authentication(credential=credential, challenge=challenge, rp_id="localhost",
                                                origin=ORIGIN, passkey=passkey)
    assert asserted == ceremonies.Asserted(sign_count=1, backed_up=False, user_verified=True)
    options = json.loads(ceremonies.authentication_options(rp_id="localhost", challenge=challenge, allowed=(passkey,)))
    assert (options["rpId"], options["userVerification"], options["allowCredentials"]) == (
        "localhost", "required", [{"id": passkey.credential_id, "type": "public-key"}])
    # Username-less (discoverable credentials): no list, the authenticator offers the user's passkeys.
    assert json.loads(ceremonies.authentication_options(rp_id="localhost", challenge=challenge))[
        "allowCredentials"] == []


def test_a_counter_that_does_not_move_forward_is_refused_and_logged() -> None:
    device = SoftAuthenticator()
    passkey = enrolled(device)._replace(sign_count=5)
    for counter in (5, 4, 0):
        challenge = secrets.token_bytes(32)
        with LogCapture() as capture, pytest.raises(SignCountRegressed,
                                                    match=f"signature counter {counter} is not above the stored 5"):
            ceremonies.verify_authentication(credential=device.assertion(challenge, counter=counter),
                                             challenge=challenge, rp_id="localhost", origin=ORIGIN, passkey=passkey)
        (line,) = [json.loads(x) for x in capture.lines if "counter went backwards" in x]
        # The passkey's id (public: the browser sends it in the clear), never under a credential-like name.
        assert {k: line[k] for k in ("level", "passkey_id", "tenant", "stored_sign_count",
                                     "presented_sign_count")} == {
            "level": "WARNING", "passkey_id": passkey.credential_id, "tenant": "demo", "stored_sign_count": 5,
            "presented_sign_count": counter}
    # An authenticator that keeps no counter (always 0) is fine while the stored one is 0 too.
    challenge = secrets.token_bytes(32)
    assert ceremonies.verify_authentication(credential=device.assertion(challenge, counter=0), challenge=challenge,
                                            rp_id="localhost", origin=ORIGIN,
                                            passkey=passkey._replace(sign_count=0)).sign_count == 0


@pytest.mark.parametrize("change", ["no-user-verification", "tampered", "other-rp", "other-origin"])
def test_an_assertion_that_does_not_verify_is_refused(change: str) -> None:
    device = SoftAuthenticator()
    passkey = enrolled(device)
    challenge = secrets.token_bytes(32)
    credential = device.assertion(challenge, verified=change != "no-user-verification", tamper=change == "tampered",
                                  rp_id="evil.example" if change == "other-rp" else None,
                                  origin="http://localhost:4000" if change == "other-origin" else None)
    with pytest.raises(PasskeyRefused, match="^the assertion does not verify: "):
        ceremonies.verify_authentication(credential=credential, challenge=challenge, rp_id="localhost",
                                         origin=ORIGIN, passkey=passkey)


def test_a_response_naming_no_credential_or_challenge_is_refused() -> None:
    for credential in ({}, {"id": 5}, {"rawId": ""}, {"id": "x" * 2000}):
        with pytest.raises(PasskeyRefused, match="names no credential"):
            ceremonies.credential_id_of(credential)
        with pytest.raises(PasskeyRefused, match="names no challenge"):
            ceremonies.challenge_of(credential)
    for data in ("!!", ceremonies.base64url.encode(b"[]"), ceremonies.base64url.encode(b'{"challenge": 1}')):
        with pytest.raises(PasskeyRefused, match="names no challenge"):
            ceremonies.challenge_of({"response": {"clientDataJSON": data}})


def test_the_relying_party_is_the_issuers_host_never_an_ip_address() -> None:
    assert relying_party_id("http://localhost:3000") == "localhost"
    assert relying_party_id("https://auth.example.com/prod") == "auth.example.com"
    for issuer in ("http://127.0.0.1:3000", "https://[::1]:8443"):
        with pytest.raises(RelyingPartyUnusable, match="browsers refuse IP addresses as WebAuthn relying party ids"):
            relying_party_id(issuer)
    with pytest.raises(RelyingPartyUnusable, match="has no host"):
        relying_party_id("/relative")
