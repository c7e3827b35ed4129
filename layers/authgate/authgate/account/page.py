"""The account page, GET/POST /oauth/account: a person signs in and changes their own password and factors
(docs/users.md, "The account page").

The page signs the person in itself, so that every change is made within 10 minutes of a password (account.signed_in:
its cookie, or a fresh sign-in session at `mfa`). The page's sign-in is the interaction's (interaction.password_step,
the person naming their organisation); it goes on the person's session in this browser, or opens one at
`password` (single sign-on then serves it as any other). Its forms name their step in their CSRF nonce: `password`
(the sign-in form) and `account` (every form of a signed-in person, whose `action` says which); a form whose action
is not its step's gets the sign-in form, as a page whose sign-in expired does.

A person whose organisation signs in with its own identity provider types their work email and no password (home-
realm discovery, interaction.upstream_start): the provider's answer comes back to this page (step `upstream`, and
`link` for the proof of an account they already have) and signs them in as the password does.

The sections: the password change (account.password), the one-time code (account.factor_enrolment) and the
passkeys (account.passkey_enrolment), each change of factors confirmed by a factor the person already holds
(account.factor_proof); the applications the person allowed, each with "Remove access" (account.allowed_apps).
Forms are CSRF-protected as the forgotten-password forms are; pages are never cached or framed.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from string import Template

from authgate.account import (
    allowed_apps,
    factor_enrolment,
    factor_proof,
    passkey_enrolment,
    password,
)
from authgate.account.signed_in import ACCOUNT, Account, cookie, issue, live_session, signed_in_user
from authgate.http.pages import messages
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction import messages as sign_in_messages
from authgate.interaction import password_step, sessions, sign_in_fields, steps, upstream_answer
from authgate.interaction.handoff import Again, Authentication, Back, HandOff, Voice
from authgate.interaction.pages import csrf_fields, csrf_state, form_fields, page, step_of
from authgate.tenants.model import Tenant
from authgate.users.passwords import MIN_PASSWORD

# The page's sign-in: the person names their organisation; no session opened by the interaction (the page's own
# goes on the browser's session), and a password an operator reset is changed on this page.
HAND_OFF = HandOff(tenant=Tenant(""), session=False, change="resume", words=sign_in_messages.ACCOUNT)
EXPIRED = "Your sign-in on this page has expired: sign in again."
CHANGED = ("Your password has been changed. Every earlier sign-in has ended: sign in to your applications again "
           "with the new password.")

_SIGN_IN = Template("""<p>Sign in to manage your account.</p>
$message
<form method="post" action="account" autocomplete="on">
<input type="hidden" name="action" value="sign_in">
$csrf
$sign_in
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
    """The form's step and action: the page's own sign-in (step `password`), or a change by the signed-in person
    (step ACCOUNT, ACTIONS); any other form, or one whose sign-in expired, gets the sign-in form."""
    fields = form_fields(request)
    action = fields.get("action", "")
    if action == "sign_in" and step_of(fields) in (steps.UPSTREAM, steps.LINK):
        return _upstream(request, fields)
    if action == "sign_in" and step_of(fields) == steps.PASSWORD:
        return _sign_in(request, fields)
    act = ACTIONS.get(action)
    account = signed_in_user(request) if act is not None else None
    if act is None or account is None or step_of(fields) != ACCOUNT:
        return _sign_in_page(request, EXPIRED)
    return act(request, account, fields)


def _hand_off(request: Request, posted: dict[str, str]) -> HandOff:
    """The page's sign-in, its steps posting back here (an identity provider's answer, the link page)."""
    def state(step: str) -> list[tuple[str, str]]:
        if step_of(posted) == step:
            csrf = [("nonce", posted.get("nonce", "")), ("csrf", posted.get("csrf", ""))]
        else:
            csrf, _cookie = csrf_state(request, step)  # the browser's binding exists: the sign-in form was posted
        return [("action", "sign_in"), *csrf]

    voice = Voice(asker="your account", factor_lead="<p>To manage your account, confirm it is you.</p>",
                  goal="To manage your account", approved="your account")
    return HAND_OFF._replace(back=Back(action="account", state=state, voice=voice))


def _sign_in(request: Request, fields: dict[str, str]) -> Response:
    """The page's sign-in (the interaction's password step), on the browser's session of the same person, else on a
    new one (none while a password change is due: that comes first, on this page)."""
    return _signed_in(request, password_step.signed_in(request, _hand_off(request, fields), fields))


def _upstream(request: Request, fields: dict[str, str]) -> Response:
    """An identity provider's answer brought back (or the link page posted): signed in as the password signs in."""
    handoff = _hand_off(request, fields)
    if step_of(fields) == steps.LINK:
        return _signed_in(request, upstream_answer.linked(request, handoff, fields))
    return _signed_in(request, upstream_answer.signed_in(request, handoff, fields))


def _signed_in(request: Request, signed: Authentication | Again | Response) -> Response:
    """The change page of the person the interaction signed in, or its answer (a page, the sign-in form again)."""
    if isinstance(signed, Again):
        return _sign_in_page(request, signed.message)
    if isinstance(signed, Response):
        return signed
    account, cookies = Account(signed.tenant_id, signed.username, signed.user_id), []
    live = live_session(request)
    sid = live[0].sid if live is not None and live[0].user_id == signed.user_id else ""
    if not sid and not signed.change_due:
        opened = sessions.opened(request, signed)
        assert opened.session is not None and opened.cookie is not None
        cookies.append(opened.cookie)
        sid = opened.session.sid
    return _change_page(request, account, cookies=[*cookies, cookie(request, issue(account, sid))])


def _factors(request: Request, account: Account, fields: dict[str, str]) -> Response:
    """A change of the person's one-time code or passkeys: a page of its own, or the account page with its message."""
    enrolment = passkey_enrolment if fields.get("action") in passkey_enrolment.ACTIONS else factor_enrolment
    done = enrolment.act(request, account.tenant_id, account.username, fields, user_id=account.user_id)
    return done if isinstance(done, Response) else _change_page(request, account, done)


def _allowed_apps(request: Request, account: Account, fields: dict[str, str]) -> Response:
    """Remove a client's access (account.allowed_apps), then the account page with its message."""
    return _change_page(request, account, allowed_apps.act(account, fields))


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
    csrf, binding = csrf_fields(request, steps.PASSWORD)
    body = _SIGN_IN.substitute(message=messages.alert(message), csrf=csrf, sign_in=sign_in_fields.fields(HAND_OFF))
    return page("Your account", body, binding)


def _change_page(request: Request, account: Account, message: str = "", cookies: list[str] | None = None) -> Response:
    csrf, binding_cookie = csrf_fields(request, ACCOUNT)
    factors = factor_proof.held(account.tenant_id, account.username)
    body = _CHANGE.substitute(message=messages.shown(message), csrf=csrf, username=html.escape(account.username),
                              min=MIN_PASSWORD,
                              factors=factor_enrolment.section(factors, csrf) + "\n" +
                              passkey_enrolment.section(request, factors, csrf) + "\n" +
                              allowed_apps.section(account, csrf))
    response = page("Your account", body, binding_cookie)
    if cookies:
        response.multi_headers.setdefault("Set-Cookie", []).extend(cookies)
    return response


# What each action of a signed-in person's forms (step ACCOUNT) does; the sign-in form's (step `password`) is
# action=sign_in.
ACTIONS: dict[str, Callable[[Request, Account, dict[str, str]], Response]] = {
    "change": _change,
    allowed_apps.ACTION: _allowed_apps,
    **{action: _factors for action in (*factor_enrolment.ACTIONS, *passkey_enrolment.ACTIONS)},
}
