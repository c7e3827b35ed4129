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
sealed (sealed_form.seal_state, a purpose label of its own), lives 5 minutes and is bound to the
session's secret (its hash) and to the form's CSRF token. A code given through it raises the session
(stores.sessions.raised): the old secret's record is deleted on the condition it still exists and the
session gets a new secret with the same sid, so the ticket opens nothing afterwards (single use)
and a secret known before the step is worthless (session fixation). The new `auth_time` is the
step's time when the password was given at most FRESH_PASSWORD seconds before (identity-design:
a fresh step-up satisfies max_age), else the password's. Every code is checked through the second factor's
own throttle (stores.factor_attempts): wrong codes lock the factor, and no right password resets their count.
The code's POST reads the client, its tenant, the session and the user's item in one BatchGetItem
(`step_reads`; the ticket names them), and accepts the code and rotates the session in one TransactWriteItems
(FactorAttempts.judged_code, SessionStore.raised).
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal, NamedTuple

from authgate import clock, records
from authgate.assurance import MFA, PASSWORD, assurance_of, satisfies
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.oauth.authorization import passkey_sign_in, sealed_form, session_cookie
from authgate.oauth.authorization.request import AuthorizationRequest
from authgate.oauth.clients.lookup import ClientLookup
from authgate.sessions.model import Session, hash_secret
from authgate.stores.batch import BatchRead, Pending
from authgate.stores.factor_attempts import FactorAttempts
from authgate.stores.passkeys import PasskeyStore
from authgate.stores.sessions import SessionStore
from authgate.stores.tenants import TenantStore
from authgate.stores.user_factors import UserFactorStore
from authgate.stores.users import UserStore
from authgate.tenants.model import Tenant
from authgate.users.errors import AttemptOvertaken, NoPendingEnrolment

STEP_TTL = 300
# A password given this recently makes a second factor's time the sign-in's auth_time (identity-design).
FRESH_PASSWORD = 300
_PURPOSE = b"second-factor"
MAX_CODE = 64
WRONG_CODE = ("The code is incorrect or was used already, or this account is temporarily locked after repeated "
              "failed attempts. Check it and try again in a moment.")
MISSING_CODE = "Enter the code, then choose Continue."
UNMET = ("This request needs a sign-in with a second factor (acr mfa), and this account has none; set one up on "
         "the account page, or ask without an essential acr.")
# OpenID Connect Core 3.1.2.6: why prompt=none cannot be honoured here.
PROMPT_NONE_CODE = "The user must sign in with a second factor, and prompt=none forbids asking them to."
PROMPT_NONE_ENROL = "The user must set up a second factor, and prompt=none forbids asking them to."

Kind = Literal["code", "enrol"]


class StepInvalid(Exception):
    """A second-factor ticket that is missing, altered, expired, used already, or of another session."""


class Outcome(NamedTuple):
    """A posted step: the session raised (its new cookie secret and record), or the message to show it again with."""

    kind: Kind
    # The consent decision was made on the password form already: the code follows at once.
    approved: bool
    raised: tuple[str, Session] | None = None
    message: str = ""
    # An enrolment's pending secret, to show the same QR code again after a wrong code.
    secret: str | None = None
    # A confirmed enrolment's recovery codes, shown once.
    recovery: tuple[str, ...] = ()
    # The person chose "Use a passkey instead": the ceremony's page comes next.
    passkey: bool = False
    # Whether the person had approved the request's scopes for the client when the step was shown (None: unknown).
    remembered: bool | None = None


def required(auth: AuthorizationRequest, tenant: Tenant) -> tuple[str, bool]:
    """(acr the request needs, whether it is essential): see the module's docstring."""
    if tenant.require_mfa:
        return MFA, True
    if auth.essential_acr and PASSWORD not in auth.essential_acr:
        return MFA, True
    return (MFA if auth.acr_values[:1] == (MFA,) else PASSWORD), False


def missing(auth: AuthorizationRequest, tenant: Tenant, session: Session, totp: bool | None = None,
            passkeys: bool | None = None) -> Kind | None:
    """The step `session` lacks for `auth`, or None; unmet_authentication_requirements when `mfa` is essential
    and can be neither given nor enrolled. `totp`: whether the user holds a one-time-code secret, as a read this
    request made already saw it (None: one GetItem of the user's factors, only below the level); `passkeys`:
    whether they hold a passkey, as that read counted it (None: one Query, only when they hold no secret)."""
    if not tenant.tenant_id:
        tenant = TenantStore().get(session.tenant_id) or tenant
    acr, essential = required(auth, tenant)
    if satisfies(session.acr, acr):
        return None
    if totp is None:
        factors = UserFactorStore().factors(session.tenant_id, session.username)
        totp = factors is not None and factors.totp
    if totp or PasskeyStore().held(session.tenant_id, session.username, passkeys):
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


def step_ticket(*, kind: Kind, session: Session, csrf: str, approved: bool, secret: str | None,
                remembered: bool | None = None) -> str:
    """The step's sealed ticket: bound to the session's secret (its hash) and the form's CSRF token, 5 minutes."""
    return sealed_form.seal_state(_PURPOSE, {"h": session.session_hash, "k": kind, "a": approved,
                                             # Whose item the code's POST reads in its one BatchGetItem.
                                             "t": session.tenant_id, "u": session.username,
                                             "c": _digest(csrf), **({"s": secret} if secret else {}),
                                             **({"r": remembered} if remembered is not None else {})}, STEP_TTL)


class StepReads(NamedTuple):
    """What a posted step's ONE BatchGetItem read (`step_reads`): the client, its tenant as the request named it,
    and the session and user the ticket names (None: not read, the ticket did not open or is not this browser's)."""

    client: Pending | None
    tenant: Pending | None
    session: Pending | None
    user: Pending | None


def step_reads(request: Request, fields: dict[str, list[str]], auth: AuthorizationRequest,
               lookup: ClientLookup) -> StepReads:
    """The reads of a posted step in one BatchGetItem (stores.batch): the client (through the endpoint's `lookup`),
    its tenant, the browser's session and its user's item, whose keys the sealed ticket carries; what they hold is
    judged later."""
    reads = BatchRead(operation="second_factor.batch_get")
    client = lookup.prefetch(reads, auth.client_id)
    tenant = TenantStore().prefetch(reads, auth.tenant_id) if auth.tenant_id else None
    session = user = None
    secret = session_cookie.secret_from(request)
    state = _opened(_one(fields, "factor_ticket"))
    if secret is not None and state is not None and state.get("h") == hash_secret(secret):
        session = SessionStore().prefetch(reads, secret)
        user = UserStore().prefetch(reads, str(state.get("t") or ""), str(state.get("u") or ""))
    reads.run()
    return StepReads(client, tenant, session, user)


def session_of(request: Request, reads: StepReads | None = None) -> Session | None:
    """The browser's live session whatever its tenant (a self-registered client's step has no tenant to ask), as
    `reads` found it when they read it."""
    if reads is not None and reads.session is not None:
        return SessionStore.found_live(reads.session.item)
    secret = session_cookie.secret_from(request)
    return SessionStore().live(secret) if secret is not None else None


def submitted(request: Request, fields: dict[str, list[str]], session: Session,
              user: Pending | None = None) -> Outcome:
    """What a posted step did: the session raised, the passkey ceremony asked for, or the message to show the step
    again with. `user`: the user's item as the step's batch read it (a code is then accepted in the session's
    rotation, one TransactWriteItems).

    StepInvalid when the ticket does not hold for this form and this browser's session as it stands now."""
    ticket, csrf = _one(fields, "factor_ticket"), _one(fields, "csrf")
    state = _opened(ticket)
    if state is None:
        raise StepInvalid("the ticket does not open")
    if state.get("h") != session.session_hash or state.get("c") != _digest(csrf):
        raise StepInvalid("the step's session or form changed")
    kind: Kind = "enrol" if state.get("k") == "enrol" else "code"
    remembered = state.get("r")
    shown_again = Outcome(kind, bool(state.get("a")), secret=str(state["s"]) if state.get("s") else None,
                          remembered=remembered if isinstance(remembered, bool) else None)
    if kind == "code" and _one(fields, "use") == "passkey":
        return shown_again._replace(passkey=True)
    credential = _one(fields, "credential")
    if kind == "code" and credential:
        methods = passkey_sign_in.second_factor(request, session, credential)
        if methods is None:
            return shown_again._replace(message=passkey_sign_in.REFUSED)
        raised = _raise(session, methods)
        if raised is None:
            raise StepInvalid("the session was raised or ended meanwhile")
        return shown_again._replace(raised=raised)
    code = _one(fields, "code").strip()[:MAX_CODE]
    if not code:
        return shown_again._replace(message=MISSING_CODE)
    recovery: tuple[str, ...] = ()
    if kind == "enrol":
        try:
            confirmed = UserFactorStore().confirm_totp(session.tenant_id, session.username, code)
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


def _opened(ticket: str) -> dict[str, Any] | None:
    """The step ticket's sealed state, or None when it is missing, altered or expired."""
    try:
        return sealed_form.open_state(_PURPOSE, ticket)
    except (sealed_form.FormStateInvalid, ValueError, KeyError, TypeError):
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


def _one(fields: dict[str, list[str]], name: str) -> str:
    values = fields.get(name) or [""]
    return values[0]
