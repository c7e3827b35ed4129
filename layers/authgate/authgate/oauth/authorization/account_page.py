"""The account page, GET/POST /oauth/account: a person signs in and changes their own password (docs/users.md).

The page signs the person in itself, so that every change is made within 10 minutes of a password: a
correct password (through every sign-in throttle, oauth.authorization.sign_in) sets a short-lived cookie
`authgate_account` (10 minutes, HttpOnly, SameSite=Strict; `__Host-` on a stage: http.cookies) holding the tenant,
username, issue time and the sid of the browser's sign-in session, HMAC-SHA256-signed with the session
secret under its own purpose label. The page's sign-in is a sign-in: it goes on the person's session in
this browser, or opens one at `password` (single_sign_on then serves it as any other), and it holds only
while that session lives, so signing out (oauth.logout) ends the page too, at once. A person whose
password an operator reset gets no session from the temporary password (the forced change comes first,
as at the sign-in page); their page's sign-in stands alone until the change or its 10 minutes end.
`signed_in_user` is the one place that says who the request's person is.

The second-factor section (oauth.authorization.factor_enrolment) sets up and removes a one-time code, the
passkey section (oauth.authorization.passkey_enrolment) lists, adds and removes passkeys, each change
confirmed by a factor the person already holds (oauth.authorization.factor_proof: a code or one of their
passkeys); every action on the page is made within the 10 minutes of its sign-in. A browser whose sign-in session is at
`mfa` (a password and a second factor, or a passkey) and began at most 10 minutes ago opens the page without the
password: that sign-in is as fresh as the page's own and stronger.

The change needs the current password again (a stolen cookie alone changes nothing), a new one that
is acceptable (users.passwords.password_problem), not the current one, typed twice. It ends every
earlier session and refresh token (sessions_valid_after), the page's own cookie with them. Forms are
CSRF-protected as the forgotten-password forms are; pages are never cached or framed.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import json
from string import Template
from typing import NamedTuple

from authgate import base64url, clock
from authgate.assurance import MFA
from authgate.http.cookies import cookie_values, set_cookie
from authgate.http.pages import messages
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.issuer import base_url
from authgate.oauth.authorization import (
    factor_enrolment,
    factor_proof,
    passkey_enrolment,
    session_cookie,
)
from authgate.oauth.authorization.account_forms import csrf_fields, form_fields, page
from authgate.oauth.authorization.sign_in import account_of, open_session, sign_in
from authgate.sessions.model import Session
from authgate.stores.sealing_key import sealing_key
from authgate.stores.sessions import SessionStore
from authgate.stores.users import UserStore
from authgate.users.errors import UserNotFound
from authgate.users.model import User
from authgate.users.passwords import MIN_PASSWORD, password_problem

COOKIE = "authgate_account"
COOKIE_TTL = 600
WRONG = ("The organisation, username or password is incorrect, or this account is temporarily locked. The "
         "organisation is the short id your administrator gave you (such as acme); with a work email address "
         "you can usually leave it empty.")
WRONG_CURRENT = "The current password is incorrect, or this account is temporarily locked."
CHANGED = ("Your password has been changed. Every earlier sign-in has ended: sign in to your applications again "
           "with the new password.")

_SIGN_IN = Template("""<p>Sign in to manage your account.</p>
$message
<form method="post" action="account" autocomplete="on">
<input type="hidden" name="action" value="sign_in">
$csrf
<label for="tenant">Organisation</label>
<p class="fine" id="tenant-help">The short id your administrator gave you, such as <code>acme</code>; leave it empty
with a work email address, or for your usual organisation.</p>
<input id="tenant" name="tenant" type="text" autocomplete="organization" autocapitalize="none" spellcheck="false" aria-describedby="tenant-help">
<label for="username">Username or email</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions">
<button type="submit">Sign in</button>
</div>
</form>""")
_CHANGE = Template("""<p>Signed in as <strong>$username</strong>.</p>
$message
<form method="post" action="account" autocomplete="off">
<input type="hidden" name="action" value="change">
$csrf
<label for="current">Current password</label>
<input id="current" name="current" type="password" autocomplete="current-password" required autofocus>
<label for="new_password">New password (at least $min characters)</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" minlength="$min" required>
<label for="confirm">New password, again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="$min" required>
<div class="actions">
<button type="submit">Change the password</button>
</div>
</form>
$factors""")


class Account(NamedTuple):
    tenant_id: str
    username: str


def signed_in_user(request: Request) -> Account | None:
    """The person this request is signed in as, or None: the page's cookie, issued in the browser's sign-in session
    (or, for a password change due, on its own) at most COOKIE_TTL ago; else that session when it is at `mfa` and
    its sign-in is at most COOKIE_TTL old. Either only while the user exists, is enabled and has not ended its
    sessions since."""
    live = _live_session(request)
    for value in cookie_values(request, COOKIE):
        account = _account(value, live)
        if account is not None:
            return account
    return _fresh_mfa_session(live)


def _live_session(request: Request) -> tuple[Session, User] | None:
    """The browser's live sign-in session and its user, while the user admits it (single_sign_on's rule)."""
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
    return Account(user.tenant_id, user.username)


def get_account(request: Request) -> Response:
    """The change form for the signed-in person, else the sign-in form."""
    account = signed_in_user(request)
    return _change_page(request, account) if account else _sign_in_page(request)


def post_account(request: Request) -> Response:
    """action=sign_in: the page's own sign-in; action=change: the password change."""
    fields = form_fields(request)
    action = fields.get("action")
    if action == "change" or action in factor_enrolment.ACTIONS or action in passkey_enrolment.ACTIONS:
        account = signed_in_user(request)
        if account is None:
            return _sign_in_page(request, "Your sign-in on this page has expired: sign in again.")
        if action == "change":
            return _change(request, account, fields)
        enrolment = passkey_enrolment if action in passkey_enrolment.ACTIONS else factor_enrolment
        done = enrolment.act(request, account.tenant_id, account.username, fields)
        return done if isinstance(done, Response) else _change_page(request, account, done)
    username, password = fields.get("username", "").strip()[:320], fields.get("password", "")
    if not username or not password:
        return _sign_in_page(request, "Enter your username and password.")
    tenant_id, username = account_of("", fields.get("tenant", "").strip()[:100], username)
    result = sign_in(tenant_id, username, password, request.source_ip)
    if not result.ok:
        return _sign_in_page(request, WRONG)
    account, cookies = Account(tenant_id, username), []
    live = _live_session(request)
    sid = live[0].sid if live is not None and live[0].user_id == result.user_id else ""
    if not sid and not result.must_change_password:
        secret, session = open_session(tenant_id, result)
        cookies.append(session_cookie.set_cookie(secret, base_url(request)))
        sid = session.sid
    return _change_page(request, account, cookies=[*cookies, _cookie(request, _issue(account, sid))])


def _change(request: Request, account: Account, fields: dict[str, str]) -> Response:
    current, new, confirm = fields.get("current", ""), fields.get("new_password", ""), fields.get("confirm", "")
    problem = password_problem(new, account.username)
    if not problem and new != confirm:
        problem = "The two new passwords differ."
    if not problem and hmac.compare_digest(new.encode("utf-8", "surrogatepass"),
                                           current.encode("utf-8", "surrogatepass")):
        problem = "The new password must differ from the current one."
    if problem:
        return _change_page(request, account, problem)
    if not sign_in(account.tenant_id, account.username, current, request.source_ip).ok:
        return _change_page(request, account, WRONG_CURRENT)
    try:
        UserStore().change_password(account.tenant_id, account.username, new)
    except UserNotFound:
        return _sign_in_page(request, "Your sign-in on this page has expired: sign in again.")
    return page("Password changed", messages.status(CHANGED),
                _cookie(request, "", expire=True))


# -- the page's sign-in cookie ----------------------------------------------------------------------


def _mac(data: bytes) -> bytes:
    return hmac.new(sealing_key(), b"account-page\x00" + data, hashlib.sha256).digest()


def _issue(account: Account, sid: str) -> str:
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
    return Account(user.tenant_id, user.username)


def _cookie(request: Request, value: str, *, expire: bool = False) -> str:
    return set_cookie(COOKIE, value, base_url(request), same_site="Strict", max_age=0 if expire else COOKIE_TTL)


def _sign_in_page(request: Request, message: str = "") -> Response:
    csrf, cookie = csrf_fields(request)
    body = _SIGN_IN.substitute(message=messages.alert(message), csrf=csrf)
    return page("Your account", body, cookie)


def _change_page(request: Request, account: Account, message: str = "", cookies: list[str] | None = None) -> Response:
    csrf, binding_cookie = csrf_fields(request)
    factors = factor_proof.held(account.tenant_id, account.username)
    body = _CHANGE.substitute(message=messages.shown(message), csrf=csrf, username=html.escape(account.username),
                              min=MIN_PASSWORD,
                              factors=factor_enrolment.section(factors, csrf) + "\n" +
                              passkey_enrolment.section(request, factors, csrf))
    response = page("Your account", body, binding_cookie)
    if cookies:
        response.multi_headers.setdefault("Set-Cookie", []).extend(cookies)
    return response

