"""A person signs in on the consent page (RFC 6749 4.1.1 "authenticates the resource owner"; 10.10): every
throttle of a sign-in, in one place.

Two throttles stand before a password is believed: the failed sign-ins of the account and of the
address (limits.auth_failures, `AuthFailureGuard("user")`: at the quota the answer is 429
rate_limited, a temporarily_unavailable redirect, before the password is checked), and the
account's own (stores.users, authgate.users.model: a wait window after repeated failures, then a
lock; such a refusal looks like a wrong password). A failure counts against both. A tenant that
does not exist holds no user: the same scrypt work and answer as a wrong password.
"""

from __future__ import annotations

from authgate.limits.auth_failures import AuthFailureGuard
from authgate.sessions.model import Session
from authgate.single_use.authentication import PASSWORD_ACR, PASSWORD_AMR
from authgate.stores.sessions import SessionStore
from authgate.stores.users import UserStore
from authgate.users.model import LoginResult


def sign_in(tenant_id: str, username: str, password: str, source_ip: str) -> LoginResult:
    """The sign-in's outcome (`reason` for logs only); ApiError rate_limited when a failure counter is full."""
    guard, account = AuthFailureGuard("user"), f"{tenant_id}/{username}"
    guard.gate(account, source_ip)
    result = UserStore().verify(tenant_id, username, password)
    if not result.ok:
        guard.record_failure(account, source_ip)
    return result


def open_session(tenant_id: str, result: LoginResult) -> tuple[str, Session]:
    """The sign-in session a completed sign-in opens: (cookie secret, session).

    The sign-in is a sequence of steps, each raising what the session states: today the password
    alone (acr "password", amr ["pwd"]). A second factor (issue 28) is a step after the password
    and before this call, or a later call with the session's `sid` and a higher acr/amr, which
    gives the same session a new secret (SessionStore.create: no session fixation)."""
    return SessionStore().create(tenant_id=tenant_id, user_id=result.user_id, username=result.subject,
                                 acr=PASSWORD_ACR, amr=PASSWORD_AMR)
