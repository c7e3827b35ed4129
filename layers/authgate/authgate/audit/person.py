"""A person's own acts, one call each where the act is decided: a sign-in's outcome, a session, what they change
of their account, a consent, an approval (docs/audit.md, "What is recorded").

The person is the actor and the target (a user: their user_id, and their username in `details`). A sign-in
that names no account is recorded against "unknown", with the name as typed, for the auditor: the event goes
to the trail, never to the person signing in, whose answer is the same either way (no oracle). Nothing given
here may be a secret: a password, a code, a session's cookie or a request's auth_req_id never is; a
session is named by its id.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from authgate.audit.actions import Action
from authgate.audit.event import Outcome, user
from authgate.audit.record import record

# The target of a sign-in naming no account that exists.
UNKNOWN = "unknown"
# RFC 8176 methods -> the sign-in's method as the trail names it (details.method).
_METHODS = (("pwd", "password"), ("hwk", "passkey"), ("swk", "passkey"), ("otp", "one_time_code"),
            ("fed", "identity_provider"))


class Attempt(Protocol):
    """A password attempt's result (authgate.users.model.LoginResult)."""

    @property
    def ok(self) -> bool: ...
    @property
    def reason(self) -> str: ...
    @property
    def named(self) -> str: ...
    @property
    def locked_now(self) -> bool: ...


def acted(action: Action, tenant: str, user_id: str, username: str | None, *, outcome: Outcome = "success",
          reason: str | None = None, **details: Any) -> None:
    """`action` by the person on their own account; `details` without the empty ones."""
    person = user(user_id or UNKNOWN, username=username or None)
    record(action, tenant, actor=person, target=person, outcome=outcome, reason=reason,
           details={k: v for k, v in details.items() if v not in (None, "", [], ())})


def method_of(amr: Iterable[str]) -> str:
    """The method a sign-in proved the person with, from its amr (RFC 8176): the first credential it names."""
    methods = set(amr)
    return next((name for value, name in _METHODS if value in methods), "+".join(sorted(methods)) or "session")


def signed_in(tenant: str, user_id: str, username: str, acr: str, amr: Iterable[str], client_id: str = "", *,
              method: str = "", idp: str = "") -> None:
    """signin.succeeded: how (`method`, by default the amr's first credential; acr, amr; the tenant's identity
    provider `idp` that proved the person) and for which client, when a flow names one."""
    amr = list(amr)
    acted("signin.succeeded", tenant, user_id, username, method=method or method_of(amr), acr=acr, amr=amr,
          client_id=client_id, idp=idp)


def refused(tenant: str, username: str, reason: str, user_id: str = "", *, method: str = "password",
            client_id: str = "", idp: str = "") -> None:
    """signin.failed with its reason code (invalid, throttled, locked, disabled, second_factor_failed, factor_locked,
    no_password): never what was typed but the name."""
    acted("signin.failed", tenant, user_id, username, outcome="failure", reason=reason, method=method,
          client_id=client_id, idp=idp)


def attempted(tenant: str, username: str, result: Attempt, *, method: str = "password", client_id: str = "") -> None:
    """A password attempt (`method` password, or password_and_code for one form holding both) that failed (a
    success is recorded where its step ends): signin.failed, and account.locked when this failure locked the
    account."""
    if result.ok:
        return
    refused(tenant, username, result.reason, result.named, method=method, client_id=client_id)
    if result.locked_now:
        acted("account.locked", tenant, result.named, username)
