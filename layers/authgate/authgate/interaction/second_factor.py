"""The second factor of a sign-in: when a request needs `mfa`, the step that asks for it (docs/strong-authentication.md).

What a request needs (`required`): `mfa` when its tenant requires it for every sign-in, when the
essential `acr` claim allows only `mfa` (OIDC Core 5.5.1.1), or when `mfa` is the first value of
`acr_values` this server performs (OIDC Core 3.1.2.1, voluntary; RFC 9470 4); otherwise
`password`. What a session lacks (`missing`): nothing when its acr already satisfies it; a
one-time code (TOTP or recovery code) or one of their passkeys (with user verification) when the
user holds a confirmed TOTP secret or a passkey; an inline TOTP
enrolment when the tenant requires mfa (forced enrolment); otherwise `mfa` cannot be met:
`unmet_authentication_requirements` when it was essential (OpenID Connect Core Unmet
Authentication Requirements 1.0), and the sign-in stays at `password` when it was voluntary
(OIDC Core 5.5.1.1: a voluntary acr may go unmet; the ID token's acr says what was done).

The step follows a password sign-in's session (opened at `password`, its cookie set): its ticket is
sealed (interaction.sealed_state, a purpose label of its own), lives 5 minutes and is bound to the
session's secret (its hash) and to the form's CSRF token. A code given through it raises the session
(stores.sessions.raised): the old secret's record is deleted on the condition it still exists and the
session gets a new secret with the same sid, so the ticket opens nothing afterwards (single use)
and a secret known before the step is worthless (session fixation). The new `auth_time` is the
step's time when the password was given at most FRESH_PASSWORD seconds before (identity-design:
a fresh step-up satisfies max_age), else the password's. Every code is checked through the second factor's
own throttle (stores.factor_attempts): wrong codes lock the factor, and no right password resets their count.
A flow may read the session and the user's item in its own one BatchGetItem (the ticket names them: `opened`;
the authorization endpoint reads them with the client and its tenant); the code is then accepted and the session
rotated in one TransactWriteItems (FactorAttempts.judged_code, SessionStore.raised).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol

from authgate import clock, records
from authgate.assurance import MFA, PASSWORD, assurance_of, satisfies
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.interaction import enrolment, passkey_sign_in
from authgate.interaction.messages import (
    MISSING_CODE,
    PASSKEY_REFUSED,
    PROMPT_NONE_CODE,
    PROMPT_NONE_ENROL,
    UNMET,
    WRONG_CODE,
)
from authgate.interaction.sealed_state import FormStateInvalid, open_state, seal_state
from authgate.sessions.model import Session
from authgate.stores.batch import Pending
from authgate.stores.factor_attempts import FactorAttempts
from authgate.stores.passkeys import PasskeyStore
from authgate.stores.sessions import SessionStore
from authgate.stores.tenants import TenantStore
from authgate.stores.user_factors import UserFactorStore
from authgate.tenants.model import Tenant

if TYPE_CHECKING:
    from authgate.interaction.handoff import HandOff
from authgate.users.errors import AttemptOvertaken, NoPendingEnrolment

STEP_TTL = 300
# A password given this recently makes a second factor's time the sign-in's auth_time (identity-design).
FRESH_PASSWORD = 300
_PURPOSE = b"second-factor"
MAX_CODE = 64

Kind = Literal["code", "enrol"]


class AssuranceAsked(Protocol):
    """What a flow's request says of how strongly the person must sign in (OIDC Core 3.1.2.1 acr_values, 5.5.1.1
    an essential acr claim; RFC 9470 4)."""

    @property
    def acr_values(self) -> tuple[str, ...]: ...

    @property
    def essential_acr(self) -> tuple[str, ...]: ...


class StepInvalid(Exception):
    """A second-factor ticket that is missing, altered, expired, used already, or of another session."""


class Outcome(NamedTuple):
    """A posted step: the session raised (its new cookie secret and record), or the message to show it again with."""

    kind: Kind
    # The flow's notes, sealed in the ticket when the step was shown (interaction.handoff.Back.notes).
    notes: Mapping[str, Any]
    raised: tuple[str, Session] | None = None
    message: str = ""
    # An enrolment's pending secret, to show the same QR code again after a wrong code.
    secret: str | None = None
    # A confirmed enrolment's recovery codes, shown once.
    recovery: tuple[str, ...] = ()
    # The person chose "Use a passkey instead": the ceremony's page comes next.
    passkey: bool = False


def required(auth: AssuranceAsked, tenant: Tenant) -> tuple[str, bool]:
    """(acr the request needs, whether it is essential): see the module's docstring."""
    if tenant.require_mfa:
        return MFA, True
    if auth.essential_acr and PASSWORD not in auth.essential_acr:
        return MFA, True
    return (MFA if auth.acr_values[:1] == (MFA,) else PASSWORD), False


def missing(handoff: HandOff, session: Session, totp: bool | None = None, passkeys: bool | None = None, *,
            usable: Callable[[], bool]) -> Kind | None:
    """The step `session` lacks for `handoff`, or None; unmet_authentication_requirements when `mfa` is essential
    and can be neither given nor enrolled. `totp`: whether the user holds a one-time-code secret, as a read this
    request made already saw it (None: one GetItem of the user's factors, only below the level); `passkeys`:
    whether they hold a passkey, as that read counted it (None: one Query, only when they hold no secret), which
    counts only where passkeys are `usable` (asked only then: the issuer can be their relying party)."""
    if satisfies(session.acr, MFA):
        return None
    tenant = handoff.tenant
    if not tenant.tenant_id:
        tenant = TenantStore().get(session.tenant_id) or tenant
    acr, essential = required(handoff, tenant)
    if satisfies(session.acr, acr):
        return None
    if totp is None:
        factors = UserFactorStore().factors(session.tenant_id, session.username)
        totp = factors is not None and factors.totp
    if totp or (usable() and PasskeyStore().held(session.tenant_id, session.username, passkeys)):
        return "code"
    if tenant.require_mfa:
        return "enrol"
    if essential:
        raise ApiError("unmet_authentication_requirements", UNMET)
    return None


def refuse_prompt_none(kind: Kind) -> ApiError:
    """prompt=none and a step to show: login_required (a second factor) or interaction_required (enrolment)."""
    if kind == "enrol":
        return ApiError("interaction_required", PROMPT_NONE_ENROL)
    return ApiError("login_required", PROMPT_NONE_CODE)


def step_ticket(*, kind: Kind, session: Session, csrf: str, secret: str | None, notes: Mapping[str, Any]) -> str:
    """The step's sealed ticket: bound to the session's secret (its hash) and the form's CSRF token, 5 minutes; it
    carries the flow's `notes` through the step."""
    return seal_state(_PURPOSE, {"h": session.session_hash, "k": kind,
                                 # Whose item the code's POST reads in its one BatchGetItem.
                                 "t": session.tenant_id, "u": session.username,
                                 "c": _digest(csrf), **({"s": secret} if secret else {}),
                                 **({"n": dict(notes)} if notes else {})}, STEP_TTL)


def submitted(request: Request, fields: Mapping[str, str], session: Session,
              user: Pending | None = None) -> Outcome:
    """What a posted step did: the session raised, the passkey ceremony asked for, or the message to show the step
    again with. `user`: the user's item as the step's batch read it (a code is then accepted in the session's
    rotation, one TransactWriteItems).

    StepInvalid when the ticket does not hold for this form and this browser's session as it stands now."""
    ticket, csrf = fields.get("factor_ticket", ""), fields.get("csrf", "")
    state = opened(ticket)
    if state is None:
        raise StepInvalid("the ticket does not open")
    if state.get("h") != session.session_hash or state.get("c") != _digest(csrf):
        raise StepInvalid("the step's session or form changed")
    kind: Kind = "enrol" if state.get("k") == "enrol" else "code"
    notes = state.get("n")
    shown_again = Outcome(kind, notes if isinstance(notes, dict) else {},
                          secret=str(state["s"]) if state.get("s") else None)
    if kind == "code" and fields.get("use") == "passkey":
        return shown_again._replace(passkey=True)
    credential = fields.get("credential", "")
    if kind == "code" and credential:
        methods = passkey_sign_in.second_factor(request, session, credential)
        if methods is None:
            return shown_again._replace(message=PASSKEY_REFUSED)
        raised = _raise(session, methods)
        if raised is None:
            raise StepInvalid("the session was raised or ended meanwhile")
        return shown_again._replace(raised=raised)
    code = fields.get("code", "").strip()[:MAX_CODE]
    if not code:
        return shown_again._replace(message=MISSING_CODE)
    recovery: tuple[str, ...] = ()
    if kind == "enrol":
        try:
            confirmed = enrolment.confirmed(session.tenant_id, session.username, code)
        except NoPendingEnrolment:
            raise StepInvalid("the enrolment expired or was replaced") from None
        if confirmed is None:
            return shown_again._replace(message=WRONG_CODE)
        recovery = confirmed
    elif user is not None and (state.get("t"), state.get("u")) == (session.tenant_id, session.username):
        return _code_and_rotation(session, code, user.item, shown_again)
    elif not FactorAttempts().verify_code(session.tenant_id, session.username, code).ok:
        return shown_again._replace(message=WRONG_CODE)
    raised = _raise(session, frozenset({"otp"}))
    if raised is None:
        raise StepInvalid("the session was raised or ended meanwhile")
    return shown_again._replace(raised=raised, recovery=recovery, secret=None)


def _code_and_rotation(session: Session, code: str, item: dict[str, Any] | None, shown_again: Outcome) -> Outcome:
    """A code judged on the user's item the step's batch read (FactorAttempts.judged_code): when right, its acceptance
    (the factor's count reset, its TOTP step recorded or recovery code consumed, on condition nothing came in between)
    and the session's rotation in ONE TransactWriteItems; when wrong, or overtaken in between, one failure counted."""
    attempts = FactorAttempts()
    if item is not None and records.string(item, "user_id") != session.user_id:
        raise StepInvalid("the session's user is gone")
    accepted = attempts.judged_code(session.tenant_id, session.username, item, code)
    if accepted is None:
        return shown_again._replace(message=WRONG_CODE)
    try:
        raised = _raise(session, frozenset({"otp"}), alongside=accepted)
    except AttemptOvertaken:
        attempts.counted(session.tenant_id, session.username)
        return shown_again._replace(message=WRONG_CODE)
    if raised is None:
        raise StepInvalid("the session was raised or ended meanwhile")
    return shown_again._replace(raised=raised, secret=None)


def opened(ticket: str) -> dict[str, Any] | None:
    """The step ticket's sealed state, or None when it is missing, altered or expired."""
    try:
        return open_state(_PURPOSE, ticket)
    except (FormStateInvalid, ValueError, KeyError, TypeError):
        return None


def _raise(session: Session, added: frozenset[str],
           alongside: dict[str, Any] | None = None) -> tuple[str, Session] | None:
    """The session raised by a second factor's methods (RFC 8176 2: otp, or hwk/swk and user) after its sign-in's
    (`alongside`: the code's acceptance, in the same transaction)."""
    now = clock.seconds()
    methods = frozenset(m for m in session.amr if m != "mfa") | added
    assurance = assurance_of(methods, now)
    auth_time = now if now - session.auth_time <= FRESH_PASSWORD else session.auth_time
    return SessionStore().raised(session, acr=assurance.acr, amr=assurance.amr, auth_time=auth_time,
                                 alongside=alongside)


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogateescape")).hexdigest()[:32]

