"""Passkey registration and authentication ceremonies (WebAuthn Level 3 7.1, 7.2) with py_webauthn.

Options are JSON for `navigator.credentials.create/get` (WebAuthn 5.4, 5.5): discoverable
credentials (resident key required, so a passkey signs in without a username) and user
verification required, as for the response: a passkey counts as multi-factor only with it.
Attestation is not asked for ("none"): authgate trusts no authenticator model over another.
py_webauthn costs 120 to 200 ms of import (python -X importtime: cbor2, pyOpenSSL, pyasn1), so it is
imported inside these functions only.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from authgate import base64url
from authgate.logs import get_logger
from authgate.users.errors import PasskeyRefused, SignCountRegressed
from authgate.users.passkeys import Passkey

TIMEOUT_MS = 300_000  # single_use.webauthn_challenges.LIFETIME
# COSE algorithms accepted (WebAuthn 5.3): EdDSA, ES256, RS256 (py_webauthn's defaults).
ALGORITHMS = (-8, -7, -257)


class Asserted(NamedTuple):
    """A verified assertion: the counter to store, whether the key is backed up now, whether the user was verified."""

    sign_count: int
    backed_up: bool
    user_verified: bool


def registration_options(*, rp_id: str, rp_name: str, username: str, user_handle: bytes, challenge: bytes,
                         existing: tuple[str, ...] = ()) -> str:
    """PublicKeyCredentialCreationOptions as JSON; `existing` credential ids are excluded (one key per device)."""
    import webauthn  # measured: 120-200 ms at import; only a passkey ceremony pays it
    from webauthn.helpers import structs

    options = webauthn.generate_registration_options(
        rp_id=rp_id, rp_name=rp_name, user_name=username, user_id=user_handle, user_display_name=username,
        challenge=challenge, timeout=TIMEOUT_MS,
        authenticator_selection=structs.AuthenticatorSelectionCriteria(
            resident_key=structs.ResidentKeyRequirement.REQUIRED,
            user_verification=structs.UserVerificationRequirement.REQUIRED),
        exclude_credentials=[structs.PublicKeyCredentialDescriptor(id=base64url.decode(c)) for c in existing])
    return str(webauthn.options_to_json(options))


def verify_registration(*, credential: dict[str, Any], challenge: bytes, rp_id: str, origin: str, tenant_id: str,
                        username: str, name: str, now: int) -> Passkey:
    """The new Passkey of a registration response (WebAuthn 7.1), or PasskeyRefused saying why."""
    import webauthn  # measured: 120-200 ms at import
    from webauthn.helpers.exceptions import WebAuthnException
    from webauthn.helpers.structs import CredentialDeviceType

    try:
        verified = webauthn.verify_registration_response(
            credential=credential, expected_challenge=challenge, expected_rp_id=rp_id, expected_origin=origin,
            require_user_verification=True)
    except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
        raise PasskeyRefused(f"the registration does not verify: {exc}") from None
    response = credential.get("response") if isinstance(credential, dict) else None
    transports = response.get("transports") if isinstance(response, dict) else None
    return Passkey(
        credential_id=base64url.encode(verified.credential_id), tenant_id=tenant_id, username=username,
        public_key=base64url.encode(verified.credential_public_key), sign_count=verified.sign_count,
        name=name, created_at=now,
        backup_eligible=verified.credential_device_type == CredentialDeviceType.MULTI_DEVICE,
        backed_up=bool(verified.credential_backed_up),
        transports=tuple(str(t) for t in transports if isinstance(t, str))[:8] if isinstance(transports, list) else (),
        aaguid=str(verified.aaguid))


def authentication_options(*, rp_id: str, challenge: bytes, allowed: tuple[Passkey, ...] = ()) -> str:
    """PublicKeyCredentialRequestOptions as JSON: no allowed credentials for a username-less sign-in
    (discoverable), the user's own as a second factor."""
    import webauthn  # measured: 120-200 ms at import
    from webauthn.helpers import structs

    options = webauthn.generate_authentication_options(
        rp_id=rp_id, challenge=challenge, timeout=TIMEOUT_MS,
        allow_credentials=[structs.PublicKeyCredentialDescriptor(id=base64url.decode(p.credential_id))
                           for p in allowed],
        user_verification=structs.UserVerificationRequirement.REQUIRED)
    return str(webauthn.options_to_json(options))


def credential_id_of(credential: dict[str, Any]) -> str:
    """The credential id an assertion names (to find its passkey before verifying), or PasskeyRefused."""
    value = credential.get("rawId") or credential.get("id") if isinstance(credential, dict) else None
    if not isinstance(value, str) or not 1 <= len(value) <= 1366:  # 1023 bytes at most (WebAuthn 5.1)
        raise PasskeyRefused("the response names no credential")
    return value


def challenge_of(credential: dict[str, Any]) -> str:
    """The challenge (base64url) a response's client data names (WebAuthn 5.8.1), to find and spend it before
    verifying; PasskeyRefused when there is none."""
    response = credential.get("response") if isinstance(credential, dict) else None
    raw = response.get("clientDataJSON") if isinstance(response, dict) else None
    try:
        data = json.loads(base64url.decode(raw)) if isinstance(raw, str) and len(raw) <= 4096 else None
    except ValueError:
        data = None
    challenge = data.get("challenge") if isinstance(data, dict) else None
    if not isinstance(challenge, str):
        raise PasskeyRefused("the response's client data names no challenge")
    return challenge


def verify_authentication(*, credential: dict[str, Any], challenge: bytes, rp_id: str, origin: str,
                          passkey: Passkey) -> Asserted:
    """Verify an assertion of `passkey` (WebAuthn 7.2), user verification required; SignCountRegressed when its
    counter does not move forward (6.1.1: a cloned authenticator), PasskeyRefused for anything else."""
    import webauthn  # measured: 120-200 ms at import
    from webauthn.helpers.exceptions import WebAuthnException

    try:
        # The counter is judged below, against the stored one, so its failure has its own name.
        verified = webauthn.verify_authentication_response(
            credential=credential, expected_challenge=challenge, expected_rp_id=rp_id, expected_origin=origin,
            credential_public_key=base64url.decode(passkey.public_key), credential_current_sign_count=0,
            require_user_verification=True)
    except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
        raise PasskeyRefused(f"the assertion does not verify: {exc}") from None
    new = verified.new_sign_count
    if (new > 0 or passkey.sign_count > 0) and new <= passkey.sign_count:
        # Ids and counters only: enough for an operator to find the passkey and the user, nothing secret.
        get_logger().warning("passkey signature counter went backwards", extra={
            "passkey_id": passkey.credential_id, "tenant": passkey.tenant_id, "stored_sign_count": passkey.sign_count,
            "presented_sign_count": new})
        raise SignCountRegressed(f"signature counter {new} is not above the stored {passkey.sign_count}")
    return Asserted(new, bool(verified.credential_backed_up), bool(verified.user_verified))

