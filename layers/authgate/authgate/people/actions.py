"""What an operator does to a person's account: one implementation, called by `authgate users` and by the console.

disable, enable, unlock, reset_mfa, revoke_sessions and send_reset_link each take the tenant, the username and the
stack's issuer (the console's is its request's; the command's its settings') and return Done: the person as written,
the one sentence both the command and the console say, and the figures the command's --json adds. A person who is not
there is UserNotFound (users.errors), whichever caller asked; a reset link that cannot be sent is ResetLinkRefused. What ends a person's sessions tells
the clients of the sessions that counted until then (OpenID Connect Back-Channel Logout 1.0 2.5; deliveries), and
unlock forgives the failures the limiter counted for the account in this window too (limits.auth_failures), so that
an operator's action means the same thing wherever it is taken.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from authgate import clock
from authgate.mail.sender import Mail
from authgate.sessions.model import Session
from authgate.users.errors import UserNotFound
from authgate.users.model import User
from authgate.users.password_reset import RESET_TTL


class Done(NamedTuple):
    """What an action did: the person as written, the sentence said about it, and its figures (JSON)."""

    user: User
    said: str
    figures: dict[str, Any]


def disable(tenant_id: str, username: str, issuer: str) -> Done:
    """Refuse the person's sign-ins; their sessions and refresh tokens end now."""
    return _ending(tenant_id, username, issuer, "disabled (its sessions and refresh tokens end now)",
                   lambda store: store.set_disabled(tenant_id, username, True))


def enable(tenant_id: str, username: str, issuer: str) -> Done:
    """Let a disabled person sign in again."""
    from authgate.stores.users import UserStore

    return _said(UserStore().set_disabled(tenant_id, username, False), "enabled")


def unlock(tenant_id: str, username: str, issuer: str) -> Done:
    """Clear the account's own throttle and the failures the limiter counted for it in this window."""
    from authgate.limits.auth_failures import AuthFailureGuard
    from authgate.stores.users import UserStore

    user = UserStore().unlock(tenant_id, username)
    AuthFailureGuard("user").forgive(f"{tenant_id}/{username}")
    return _said(user, "unlocked")


def reset_mfa(tenant_id: str, username: str, issuer: str) -> Done:
    """Remove every second factor (one-time code, recovery codes, passkeys) and end the person's sessions: someone
    who lost their authenticator enrols again at the next sign-in."""
    from authgate.stores.user_factors import UserFactorStore
    from authgate.stores.users import UserStore

    user = _existing(tenant_id, username)
    counted = standing(user)
    ended = UserFactorStore().reset(tenant_id, username)
    announce_ended(counted, issuer)
    removed = remove_passkeys(tenant_id, username)
    after = UserStore().get(tenant_id, username)
    if after is None:
        raise UserNotFound(username)
    return Done(after, f"second factors of {username} in tenant {tenant_id} removed ({count(removed, 'passkey')}); "
                       "sessions_valid_after set to now",
                {"tenant_id": tenant_id, "username": username, "second_factors": [], "passkeys_removed": removed,
                 "sessions_valid_after": ended})


def revoke_sessions(tenant_id: str, username: str, issuer: str) -> Done:
    """End every sign-in session of the person now (their items deleted, their clients told)."""
    from authgate.stores.sessions import SessionStore
    from authgate.stores.users import UserStore

    users = UserStore()
    user = _existing(tenant_id, username)
    now = clock.seconds()
    counted = standing(user)
    if not user.user_id or not users.end_sessions(tenant_id, username, now):
        raise UserNotFound(username)
    store = SessionStore()
    ended = store.of_user(tenant_id, user.user_id)
    for session in ended:
        store.end(session.session_hash)
    announce_ended(counted, issuer)
    return Done(users.get(tenant_id, username) or user,
                f"{count(len(ended), 'session')} of {username} in tenant {tenant_id} ended",
                {"tenant": tenant_id, "username": username, "sessions_ended": len(ended), "sessions_valid_after": now})


class ResetLinkRefused(ValueError):
    """No reset link can be mailed: this stage sends no mail, or the person is disabled or has no email address.
    `reason` names which as the audit trail does (no_mail, account_disabled, no_email); `user` is the person."""

    def __init__(self, message: str, reason: str, user: User) -> None:
        super().__init__(message)
        self.reason, self.user = reason, user


def send_reset_link(tenant_id: str, username: str, issuer: str) -> Done:
    """Mail the person a link to choose a new password (the forgotten-password page's link and mail); their
    password stays as it is until they use it."""
    from authgate.deliveries.queued_mail import queue_mail
    from authgate.mail.sender import available
    from authgate.stores.password_resets import PasswordResetStore

    user = _existing(tenant_id, username)
    if not available():
        raise ResetLinkRefused("this stage sends no mail: set a temporary password instead "
                               "(`authgate users reset-password`)", "no_mail", user)
    if user.disabled or not user.email:
        raise ResetLinkRefused(f"user {username!r} of tenant {tenant_id!r} "
                               + ("is disabled: enable it first" if user.disabled else "has no email address"),
                               "account_disabled" if user.disabled else "no_email", user)
    token = PasswordResetStore().create(tenant_id, username)
    queue_mail(reset_mail(user, f"{issuer}/oauth/reset-password?token={token}"))
    return Done(user, f"a link to choose a new password was mailed to {username} in tenant {tenant_id} "
                      f"(it works once, within {RESET_TTL // 60} minutes)", {
                    "tenant_id": tenant_id, "username": username, "reset_link_mailed": True,
                    "expires_in": RESET_TTL})


def reset_mail(user: User, url: str) -> Mail:
    """The mail that carries a reset link to `user` (the forgotten-password page's, and an operator's)."""
    return Mail(user.email, "Choose a new password",
                f"Someone asked to reset the password of {user.username}. To choose a new one, open\n\n"
                f"{url}\n\nThe link works once, within {RESET_TTL // 60} minutes. If you did not ask, "
                "ignore this mail: your password stays as it is.\n")


# The actions by the name `authgate users` and the console give them; the console's rule names each `people.NAME`
# (operators.roles, with - as _).
ACTIONS: dict[str, Callable[[str, str, str], Done]] = {
    "disable": disable, "enable": enable, "unlock": unlock, "reset-mfa": reset_mfa,
    "revoke-sessions": revoke_sessions, "send-reset-link": send_reset_link,
}


def standing(user: User) -> list[Session]:
    """The person's sessions that still count (stores.sessions.SessionStore.standing)."""
    from authgate.stores.sessions import SessionStore

    return SessionStore().standing(user)


def announce_ended(sessions: list[Session], issuer: str) -> int:
    """Queue a back-channel logout token for each client of `sessions`, which just ended (BCL 2.5), as `issuer`."""
    from authgate.deliveries.backchannel_logout import announce

    return announce(sessions, issuer) if sessions else 0


def remove_passkeys(tenant_id: str, username: str) -> int:
    """Remove every passkey of a person (WebAuthn credentials are personal data); how many there were."""
    from authgate.stores.passkeys import PasskeyStore

    passkeys = PasskeyStore()
    return sum(passkeys.remove(tenant_id, username, p.credential_id) for p in passkeys.of_user(tenant_id, username))


def count(number: int, noun: str) -> str:
    """"1 passkey", "0 passkeys", "2 sessions"."""
    return f"{number} {noun if number == 1 else noun + 's'}"


def _existing(tenant_id: str, username: str) -> User:
    from authgate.stores.users import UserStore

    user = UserStore().get(tenant_id, username)
    if user is None:
        raise UserNotFound(username)
    return user


def _said(user: User, what: str) -> Done:
    return Done(user, f"user {user.username} {what} in tenant {user.tenant_id}", {})


def _ending(tenant_id: str, username: str, issuer: str, what: str, change: Callable[[Any], User]) -> Done:
    """Apply `change`, which ends the person's sessions: the clients of those that counted until now are told."""
    from authgate.stores.users import UserStore

    store = UserStore()
    before = store.get(tenant_id, username)
    counted = standing(before) if before is not None else []
    user = change(store)
    announce_ended(counted, issuer)
    return _said(user, what)
