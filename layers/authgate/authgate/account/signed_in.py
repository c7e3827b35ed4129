"""Who the account page's person is (docs/users.md, "The account page"): the page's own sign-in cookie, or a fresh
sign-in session at `mfa`.

A correct password on the page's sign-in form (the interaction's, through every sign-in throttle) sets a
short-lived cookie `authgate_account` (10 minutes, HttpOnly, SameSite=Strict; `__Host-` on a stage: http.cookies)
holding the tenant, username, issue time and the sid of the browser's sign-in session, HMAC-SHA256-signed with the
stack's sealing key under its own purpose label. It holds only while that session lives, so signing out
(oauth.logout) ends the page too, at once. A person whose password an operator reset gets no session from the
temporary password (the forced change comes first, as at the sign-in page); their page's sign-in stands alone until
the change or its 10 minutes end. A browser whose sign-in session is at `mfa` and began at most 10 minutes ago needs
no cookie: that sign-in is as fresh as the page's own and stronger. `signed_in_user` is the one place that says who
the request's person is.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import NamedTuple

from authgate import base64url, clock
from authgate.assurance import MFA
from authgate.http.cookies import cookie_values, set_cookie
from authgate.http.request import Request
from authgate.interaction import session_cookie
from authgate.issuer import base_url
from authgate.sessions.model import Session
from authgate.stores.sealing_key import sealing_key
from authgate.stores.sessions import SessionStore
from authgate.stores.users import UserStore
from authgate.users.model import User

COOKIE = "authgate_account"
COOKIE_TTL = 600
# The step of every form of a signed-in person (interaction.steps: their CSRF nonces name it; an `action` says which).
ACCOUNT = "account"


class Account(NamedTuple):
    tenant_id: str
    username: str
    # The user's stable id, as their own read of the user found it (the audit trail names them by it).
    user_id: str = ""


def signed_in_user(request: Request) -> Account | None:
    """The person this request is signed in as, or None: the page's cookie, issued in the browser's sign-in session
    (or, for a password change due, on its own) at most COOKIE_TTL ago; else that session when it is at `mfa` and
    its sign-in is at most COOKIE_TTL old. Either only while the user exists, is enabled and has not ended its
    sessions since."""
    live = live_session(request)
    for value in cookie_values(request, COOKIE):
        account = _account(value, live)
        if account is not None:
            return account
    return _fresh_mfa_session(live)


def live_session(request: Request) -> tuple[Session, User] | None:
    """The browser's live sign-in session and its user, while the user admits it (single sign-on's rule)."""
    secret = session_cookie.secret_from(request)
    session = SessionStore().live(secret) if secret is not None else None
    if session is None:
        return None
    user = UserStore().get(session.tenant_id, session.username)
    if user is None or not user.admits(session.user_id, session.generation, session.auth_time):
        return None
    return session, user


def _fresh_mfa_session(live: tuple[Session, User] | None) -> Account | None:
    """The person of the browser's sign-in session when it is at `mfa` and its sign-in (auth_time) is at most
    COOKIE_TTL old: as fresh and as strong as the page's own password sign-in, so the page asks nothing more."""
    if live is None:
        return None
    session, user = live
    if session.acr != MFA or clock.seconds() - session.auth_time > COOKIE_TTL:
        return None
    return Account(user.tenant_id, user.username, user.user_id)


def _mac(data: bytes) -> bytes:
    return hmac.new(sealing_key(), b"account-page\x00" + data, hashlib.sha256).digest()


def issue(account: Account, sid: str) -> str:
    """The page's cookie: the person, the time, and the sid of the sign-in session it goes on ("" for none)."""
    data = json.dumps({"t": account.tenant_id, "u": account.username, "iat": clock.seconds(), "sid": sid},
                      separators=(",", ":")).encode("utf-8")
    return f"{base64url.encode(data)}.{base64url.encode(_mac(data))}"


def _account(value: str, live: tuple[Session, User] | None) -> Account | None:
    """The person of the page's cookie while it holds: signed by this stack, at most COOKIE_TTL old, and issued in
    the browser's live session `live` (a cookie issued on its own, for a password change due, stands while the
    change is still due)."""
    try:
        data_part, mac_part = value.split(".")
        data, mac = base64url.decode(data_part), base64url.decode(mac_part)
    except ValueError:
        return None
    if len(value) > 2048 or not hmac.compare_digest(mac, _mac(data)):
        return None
    payload = json.loads(data)
    issued, sid, person = int(payload["iat"]), str(payload.get("sid") or ""), (str(payload["t"]), str(payload["u"]))
    if issued + COOKIE_TTL <= clock.seconds():
        return None
    if sid:
        # Signed out, or another session in this browser now: the page's sign-in ended with its session.
        if live is None or live[0].sid != sid or (live[1].tenant_id, live[1].username) != person:
            return None
        user: User | None = live[1]
    else:
        user = UserStore().get(*person)
        if user is None or not user.must_change_password:
            return None
    # A cookie of the very second of a change is dead too (users.model.User.issued_in_time).
    if user is None or not user.issued_in_time(issued):
        return None
    return Account(user.tenant_id, user.username, user.user_id)


def cookie(request: Request, value: str, *, expire: bool = False) -> str:
    """Set-Cookie of the page's sign-in (`expire`: its removal)."""
    return set_cookie(COOKIE, value, base_url(request), same_site="Strict", max_age=0 if expire else COOKIE_TTL)
