"""Forgotten passwords: GET/POST /oauth/forgot-password and /oauth/reset-password (docs/users.md).

The sign-in page links here when the stage can send mail (authgate.mail.sender.available). A person
names their account (username or email, and the organisation when the sign-in asked for one);
if it exists, is enabled and has an email, a single-use link valid for 15 minutes is mailed to it.
The mail leaves through the deliveries queue (deliveries.queued_mail): every request writes one
link and queues one message, an empty one for nobody, so neither the answer nor the work behind
it says whether the account exists. The answer is the same page whether or not anything is
sent, and every request counts against the account and the source address in the
failed-authentication limiter (RFC 9700 4.x brute force: kind "reset", whose account and address
counters are its own, so requests for nobody never refuse a sign-in). The link's page asks for the new password
twice; the link is consumed by one conditional write only once the new password is acceptable,
then the password is changed, which ends every earlier session and refresh token
(sessions_valid_after) and clears a pending forced change.

Forms are CSRF-protected as the consent form is (interaction.binding: a token bound to
this browser's binding cookie and a per-page nonce); pages are never cached or framed and send no
Referer (the reset page's URL holds the link).
"""

from __future__ import annotations

import html
from string import Template
from typing import TYPE_CHECKING

from authgate.audit import person as people
from authgate.deliveries.queued_mail import queue_mail
from authgate.errors import ApiError
from authgate.http.pages import messages
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction.pages import csrf_fields, form_fields, page
from authgate.interaction.sign_in import account_of
from authgate.issuer import base_url
from authgate.limits.auth_failures import AuthFailureGuard
from authgate.logs import get_logger
from authgate.mail.sender import available
from authgate.people.actions import reset_mail
from authgate.stores.password_resets import PasswordResetStore
from authgate.stores.users import UserStore
from authgate.users.errors import ResetLinkInvalid, UserNotFound
from authgate.users.password_reset import RESET_TTL
from authgate.users.passwords import MIN_PASSWORD, password_problem

if TYPE_CHECKING:
    from authgate.users.model import User

SENT = (f"If an account matches what you entered, a link to choose a new password is on its way to the account's "
        f"email address. It works once, within {RESET_TTL // 60} minutes.")
CHANGED = "Your password has been changed. Go back to the application and sign in with it."
# The steps of the two forms (interaction.steps: their CSRF nonces name them).
FORGOT = "forgot"
RESET = "reset"

_FORGOT_FORM = Template("""<p>Enter your username or email address. If the account has an email address, a link to choose
a new password will be sent there.</p>
$message
<form method="post" action="forgot-password" autocomplete="on">
$csrf
$tenant_field
<label for="username">Username or email</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus>
<div class="actions">
<button type="submit">Send the link</button>
</div>
</form>""")
_TENANT_FIXED = Template('<input type="hidden" name="tenant" value="$tenant">')
_TENANT_TYPED = ('<label for="tenant">Organisation</label>\n'
                 '<p class="fine" id="tenant-help">The short id your administrator gave you, such as <code>acme</code>; '
                 'leave it empty with a work email address.</p>\n'
                 '<input id="tenant" name="tenant" type="text" autocomplete="organization" autocapitalize="none" '
                 'spellcheck="false" aria-describedby="tenant-help">')
_RESET_FORM = Template("""<p>Choose a new password of at least $min characters.</p>
$message
<form method="post" action="reset-password" autocomplete="off">
<input type="hidden" name="token" value="$token">
$csrf
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="$min" required autofocus>
<label for="confirm">New password, again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="$min" required>
<div class="actions">
<button type="submit">Change the password</button>
</div>
</form>""")


def get_forgot(request: Request) -> Response:
    """The form naming the account (its tenant fixed when the sign-in page named it)."""
    _offered()
    return _forgot_page(request, (request.query.get("tenant") or [""])[0][:64])


def post_forgot(request: Request) -> Response:
    """Mail a reset link if the account exists and has an email; the same page either way."""
    _offered()
    fields = form_fields(request, FORGOT)
    tenant, username = fields.get("tenant", "").strip()[:100], fields.get("username", "").strip()[:320]
    if not username:
        return _forgot_page(request, tenant, "Enter your username or email address.")
    guard = AuthFailureGuard("reset")
    typed = f"{tenant}/{username.lower()}"
    guard.gate(typed, request.source_ip)
    guard.record_failure(typed, request.source_ip)  # every request counts: each may send a mail
    tenant_id, account = account_of("", tenant, username)
    user = UserStore().get(tenant_id, account)
    person = user if user is not None and not user.disabled and user.email else None
    # The same write and the same queued message whoever is named (a link for nobody never works, and its
    # message carries no mail): neither the answer nor its timing says whether the account exists.
    token = PasswordResetStore().create(tenant_id, person.username if person else "")
    url = f"{base_url(request)}/oauth/reset-password?token={token}"
    queue_mail(reset_mail(person, url) if person else None)
    # Ids and outcome only: never the username typed, the email or the link. The audit trail (never the requester)
    # names the account, or "unknown" (people.UNKNOWN).
    get_logger().info("password reset asked", extra={"tenant": tenant_id if user else "", "mailed": bool(person)})
    people.acted("password.reset_requested", tenant_id, user.user_id if user else "", account,
                 outcome="success" if person else "failure", reason=None if person else _not_mailed(user))
    return page("Check your email", messages.status(SENT))


def get_reset(request: Request) -> Response:
    """The form choosing the new password, while the link can still be used (it is not consumed here: mail
    scanners open links)."""
    _offered()
    token = (request.query.get("token") or [""])[0]
    PasswordResetStore().peek(token)  # ResetLinkInvalid: a page (failures.ERRORS)
    return _reset_page(request, token)


def post_reset(request: Request) -> Response:
    """Check the new password, consume the link (once), change the password."""
    _offered()
    fields = form_fields(request, RESET)
    token, password, confirm = fields.get("token", ""), fields.get("password", ""), fields.get("confirm", "")
    record = PasswordResetStore().peek(token)
    problem = password_problem(password, record.username)
    if not problem and password != confirm:
        problem = "The two passwords differ."
    if problem:
        return _reset_page(request, token, problem)
    PasswordResetStore().consume(token)
    try:
        user = UserStore().change_password(record.tenant_id, record.username, password)
    except UserNotFound:
        raise ResetLinkInvalid() from None  # deleted since the link was sent
    people.acted("password.reset", user.tenant_id, user.user_id, user.username, by="reset_link")
    get_logger().info("password reset", extra={"tenant": record.tenant_id})
    return page("Password changed", messages.status(CHANGED))


def _not_mailed(user: User | None) -> str:
    """Why no link was mailed, for the audit trail: no such account, a disabled one, one without an email."""
    return "unknown_account" if user is None else "account_disabled" if user.disabled else "no_email"


# -- what the pages share -------------------------------------------------------------------------


def _offered() -> None:
    """Only where mail can be sent: elsewhere these pages do not exist."""
    if not available():
        raise ApiError("not_found", "This stage sends no mail: ask your administrator to reset your password.")


def _forgot_page(request: Request, tenant: str, message: str = "") -> Response:
    csrf, cookie = csrf_fields(request, FORGOT)
    tenant_field = _TENANT_FIXED.substitute(tenant=html.escape(tenant)) if tenant else _TENANT_TYPED
    body = _FORGOT_FORM.substitute(message=messages.alert(message), csrf=csrf, tenant_field=tenant_field)
    return page("Forgot your password?", body, cookie)


def _reset_page(request: Request, token: str, message: str = "") -> Response:
    csrf, cookie = csrf_fields(request, RESET)
    body = _RESET_FORM.substitute(message=messages.alert(message), token=html.escape(token), csrf=csrf,
                                  min=MIN_PASSWORD)
    return page("Choose a new password", body, cookie)
