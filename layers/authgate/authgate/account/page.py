"""The account page, GET/POST /oauth/account: a person signs in and changes their own password and factors
(docs/users.md, "The account page").

The page signs the person in itself, so that every change is made within 10 minutes of a password (account.signed_in:
its cookie, or a fresh sign-in session at `mfa`). The page's sign-in is a sign-in: it goes on the person's session
in this browser, or opens one at `password` (single sign-on then serves it as any other).

The sections: the password change (account.password), the one-time code (account.factor_enrolment) and the
passkeys (account.passkey_enrolment), each change of factors confirmed by a factor the person already holds
(account.factor_proof). Forms are CSRF-protected as the forgotten-password forms are; pages are never cached or
framed.
"""

from __future__ import annotations

import html
from string import Template

from authgate.account import factor_enrolment, factor_proof, passkey_enrolment, password
from authgate.account.signed_in import Account, cookie, issue, live_session, signed_in_user
from authgate.http.pages import messages
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction import session_cookie
from authgate.interaction.pages import csrf_fields, form_fields, page
from authgate.interaction.sessions import open_session
from authgate.interaction.sign_in import account_of, sign_in
from authgate.issuer import base_url
from authgate.users.passwords import MIN_PASSWORD

WRONG = ("The organisation, username or password is incorrect, or this account is temporarily locked. The "
         "organisation is the short id your administrator gave you (such as acme); with a work email address "
         "you can usually leave it empty.")
EXPIRED = "Your sign-in on this page has expired: sign in again."
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
            return _sign_in_page(request, EXPIRED)
        if action == "change":
            return _change(request, account, fields)
        enrolment = passkey_enrolment if action in passkey_enrolment.ACTIONS else factor_enrolment
        done = enrolment.act(request, account.tenant_id, account.username, fields)
        return done if isinstance(done, Response) else _change_page(request, account, done)
    username, typed = fields.get("username", "").strip()[:320], fields.get("password", "")
    if not username or not typed:
        return _sign_in_page(request, "Enter your username and password.")
    tenant_id, username = account_of("", fields.get("tenant", "").strip()[:100], username)
    result = sign_in(tenant_id, username, typed, request.source_ip)
    if not result.ok:
        return _sign_in_page(request, WRONG)
    account, cookies = Account(tenant_id, username), []
    live = live_session(request)
    sid = live[0].sid if live is not None and live[0].user_id == result.user_id else ""
    if not sid and not result.must_change_password:
        secret, session = open_session(tenant_id, result)
        cookies.append(session_cookie.set_cookie(secret, base_url(request)))
        sid = session.sid
    return _change_page(request, account, cookies=[*cookies, cookie(request, issue(account, sid))])


def _change(request: Request, account: Account, fields: dict[str, str]) -> Response:
    """The password change (account.password), then a page saying so, the page's sign-in ended with the others."""
    try:
        done = password.changed(request, account, fields)
    except password.Refused as refused:
        return _change_page(request, account, refused.message)
    if not done:
        return _sign_in_page(request, EXPIRED)
    return page("Password changed", messages.status(CHANGED), cookie(request, "", expire=True))


def _sign_in_page(request: Request, message: str = "") -> Response:
    csrf, binding = csrf_fields(request)
    body = _SIGN_IN.substitute(message=messages.alert(message), csrf=csrf)
    return page("Your account", body, binding)


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

