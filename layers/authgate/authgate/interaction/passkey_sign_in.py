"""The passkey ceremonies of a sign-in (WebAuthn Level 3 7.2; docs/strong-authentication.md): a passkey alone (the
`passkey` step, interaction.passkey_step), one of the person's own as a second factor (interaction.factor_step), or
as a signed-in person's proof before a change (interaction.proof).

A sign-in form offers "Approve with a passkey" when the issuer's host can be a relying party
(passkey_page). Choosing it shows the ceremony's page: options for navigator.credentials.get with no
allowed credential (a discoverable credential: no username is typed), and an authentication
challenge (stores.webauthn_challenges: single use, 5 minutes) bound to this browser's binding cookie
and the client's tenant. The posted assertion spends the challenge, names its passkey (PasskeysTable),
which must belong to the client's tenant, is verified with user verification required and its
counter moved forward (users.passkey_ceremonies), and the passkey's user must still stand. The
sign-in is then `acr` mfa with `amr` hwk or swk, user and mfa (users.passkeys.amr_of), and its
auth_time is now: the passkey is the primary credential here (identity-design).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from authgate import clock
from authgate.assurance import assurance_of
from authgate.http.request import Request
from authgate.interaction import passkey_page
from authgate.interaction.binding import binding_from
from authgate.sessions.model import Session
from authgate.single_use.webauthn_challenges import Challenge, ChallengeRefused, Purpose
from authgate.stores.passkeys import PasskeyStore
from authgate.stores.users import UserStore
from authgate.stores.webauthn_challenges import WebAuthnChallengeStore
from authgate.users.errors import PasskeyRefused
from authgate.users.model import LoginResult
from authgate.users.passkeys import Passkey, amr_of

if TYPE_CHECKING:
    from authgate.users.passkey_ceremonies import Asserted

def second_factor(request: Request, session: Session, raw: str) -> frozenset[str] | None:
    """The amr methods (RFC 8176 2: hwk or swk, and user) of a posted assertion of one of `session`'s user's
    passkeys, spent and verified with user verification; None when it does not hold."""
    return of_person(request, session.tenant_id, session.username, raw)


def discoverable_options(request: Request, tenant_id: str) -> str | None:
    """PublicKeyCredentialRequestOptions (WebAuthn 5.5) with no allowed credential (a discoverable one names its
    user), the challenge bound to this browser and `tenant_id`; None when this issuer cannot use passkeys."""
    from authgate.users import passkey_ceremonies

    party = passkey_page.relying_party(request)
    binding = binding_from(request)
    if party is None or binding is None:
        return None
    challenge = WebAuthnChallengeStore().issue("authenticate", binding, tenant_id)
    return passkey_ceremonies.authentication_options(rp_id=party[0], challenge=challenge)


def own_options(request: Request, tenant_id: str, username: str, purpose: Purpose = "authenticate") -> str | None:
    """PublicKeyCredentialRequestOptions (WebAuthn 5.5) allowing only the person's own passkeys, with a challenge of
    `purpose` bound to this browser and the person; None when this issuer cannot use passkeys."""
    from authgate.users import passkey_ceremonies

    party = passkey_page.relying_party(request)
    binding = binding_from(request)
    if party is None or binding is None:
        return None
    allowed = PasskeyStore().of_user(tenant_id, username)
    challenge = WebAuthnChallengeStore().issue(purpose, binding, tenant_id, username)
    return passkey_ceremonies.authentication_options(rp_id=party[0], challenge=challenge, allowed=allowed)


def of_person(request: Request, tenant_id: str, username: str, raw: str,
              purpose: Purpose = "authenticate") -> frozenset[str] | None:
    """The amr methods (RFC 8176 2: hwk or swk, and user) of a posted assertion of one of the person's passkeys
    answering a challenge of `purpose` issued to them (own_options), spent and verified with user verification;
    None when it does not hold."""
    owner = (tenant_id, username)
    found = _asserted(request, raw, lambda passkey, challenge: (passkey.tenant_id, passkey.username) == owner
                      and (challenge.tenant_id, challenge.username) == owner, purpose)
    if found is None or not found[1].user_verified:
        return None
    return frozenset(amr_of(found[0], True)) - {"mfa"}


def verified(request: Request, tenant_id: str, raw: str) -> tuple[LoginResult, str, tuple[str, ...]] | None:
    """(the sign-in, its tenant, its amr) of a posted assertion; None when it does not hold (see the module).
    `tenant_id` is the client's tenant ("" for a self-registered client: the passkey's decides)."""
    found = _asserted(request, raw, lambda passkey, challenge: (challenge.tenant_id or tenant_id) in (
        "", passkey.tenant_id))
    if found is None:
        return None
    passkey, asserted = found
    user = UserStore().get(passkey.tenant_id, passkey.username)
    if user is None or user.disabled or not user.user_id:
        return None
    try:
        amr = assurance_of(frozenset(amr_of(passkey, asserted.user_verified)) - {"mfa"}, clock.seconds()).amr
    except ValueError:
        return None  # no user verification: not a sign-in on its own
    return (LoginResult(True, "ok", subject=user.username, user_id=user.user_id,
                        generation=user.session_generation), passkey.tenant_id, amr)


def _asserted(request: Request, raw: str, accept: Callable[[Passkey, Challenge], bool],
              purpose: Purpose = "authenticate") -> tuple[Passkey, Asserted] | None:
    """The passkey a posted assertion names and its verification (WebAuthn 7.2): the challenge spent (bound to this
    browser), the passkey `accept`ed with that challenge, the signature and counter checked and the new counter
    stored; None when any of it fails."""
    from authgate.users import passkey_ceremonies

    party = passkey_page.relying_party(request)
    binding = binding_from(request)
    if party is None or binding is None:
        return None
    try:
        credential = passkey_page.credential_of(raw)
        challenge = WebAuthnChallengeStore().consume(passkey_ceremonies.challenge_of(credential), purpose, binding)
        passkey = PasskeyStore().get(passkey_ceremonies.credential_id_of(credential))
        if passkey is None or not accept(passkey, challenge):
            raise PasskeyRefused("not a passkey this ceremony accepts")
        asserted = passkey_ceremonies.verify_authentication(credential=credential, challenge=challenge.challenge,
                                                            rp_id=party[0], origin=party[1], passkey=passkey)
        PasskeyStore().used(passkey, asserted.sign_count, asserted.backed_up, clock.seconds())
    except (PasskeyRefused, ChallengeRefused):
        return None
    return passkey, asserted
