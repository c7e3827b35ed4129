"""A person's one-time code (TOTP, RFC 6238) on the account page: set it up, see the recovery codes once, remove it.

Every action needs the account page's own sign-in, which lasts 10 minutes from the password
(account.page.COOKIE_TTL): an enrolment or a removal is always made within 10 minutes of a password
sign-in. Setting up shows a new secret as a QR code (an inline SVG drawn on the server) and in text,
kept pending until a first right code confirms it (stores.user_factors); the ten recovery codes are
shown once. A person who has a one-time code sets up no other before removing it, and removing it
takes a right code (or a recovery code) through the second factor's throttle (stores.factor_attempts), or one of
their passkeys, so a password alone never takes a second factor away. Forms are CSRF-protected as
every account form.

While a person holds a second factor, a password alone changes none (account.factor_proof):
setting one up beside a passkey, or removing it, takes a code or an assertion of one of their passkeys.
Otherwise a stolen password would enrol the thief's own factor and sign in at `mfa`.
"""

from __future__ import annotations

import html
from string import Template

from authgate.account import factor_proof
from authgate.account.factor_proof import WRONG_CODE
from authgate.account.signed_in import ACCOUNT
from authgate.audit import person
from authgate.http.pages import messages
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction import enrolment
from authgate.interaction.pages import csrf_fields, page
from authgate.issuer import base_url
from authgate.stores.user_factors import UserFactorStore
from authgate.users.errors import NoPendingEnrolment

ACTIONS = ("totp_start", "totp_confirm", "totp_remove")
EXPIRED = "The set-up expired or was started again elsewhere: start it again."
REMOVED = "The one-time code and its recovery codes were removed."
ENROLLED_ALREADY = "A one-time code is set up already: remove it before setting up another."
NOT_HELD = "No one-time code is set up."

_NONE = Template("""<h2>Second factor</h2>
<p>No one-time code is set up. With one, signing in asks for a code from an authenticator app after the password.</p>
<form method="post" action="account">
<input type="hidden" name="action" value="totp_start">
$csrf
$controls
</form>""")
_HELD = Template("""<h2>Second factor</h2>
<p>A one-time code is set up; $left recovery codes are left.</p>
<form method="post" action="account" autocomplete="off">
<input type="hidden" name="action" value="totp_remove">
$csrf
$controls
</form>""")
_ENROL = Template("""<p>Scan this QR code with an authenticator app, or type the key below into it, then enter the
six-digit code it shows.</p>
$message
$shown
$form""")
_CONFIRM = Template("""<form method="post" action="account" autocomplete="off">
<input type="hidden" name="action" value="totp_confirm">
$csrf
<label for="code">Code</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="16" required autofocus>
<div class="actions">
<button type="submit">Confirm</button>
</div>
</form>""")
SET_UP = ("Your one-time code is set up. Keep these ten recovery codes somewhere safe: each signs you in once if "
          "you lose your authenticator app. They are shown only now.")
_CODES = Template("""$set_up
<ul class="recovery-codes">
$codes
</ul>
<p><a href="account">Back to your account</a></p>""")


def section(factors: factor_proof.Held, csrf: str) -> str:
    """The account page's second-factor section, its forms carrying the page's CSRF fields and, for a person who
    holds a factor, what proves them (factor_proof)."""
    if factors.totp:
        return _HELD.substitute(csrf=csrf, left=factors.recovery_codes_left, controls=factor_proof.controls(
            factors, field_id="remove_code", button="Remove the one-time code"))
    return _NONE.substitute(csrf=csrf, controls=factor_proof.controls(factors, field_id="start_code",
                                                                      button="Set up a one-time code"))


def act(request: Request, tenant_id: str, username: str, fields: dict[str, str], *, user_id: str = "") -> Response | str:
    """One of ACTIONS: a page of its own (the QR code, the recovery codes, a passkey's ceremony proving the
    person), or the message for the account page; each change recorded for the person `user_id`."""
    action, code = fields.get("action"), fields.get("code", "").strip()[:64]
    if action == "totp_confirm":
        try:
            codes = enrolment.confirmed(tenant_id, username, code) if code else None
        except NoPendingEnrolment:
            return EXPIRED
        if codes is None:
            return _enrol_page(request, username, None, WRONG_CODE)
        person.acted("factor.enrolled", tenant_id, user_id, username, factor="totp")
        items = "\n".join(f"<li><code>{html.escape(c)}</code></li>" for c in codes)
        return page("Your recovery codes", _CODES.substitute(set_up=messages.status(SET_UP), codes=items))
    factors = factor_proof.held(tenant_id, username)
    if action == "totp_start" and factors.totp:
        return ENROLLED_ALREADY
    if action == "totp_remove" and not factors.totp:
        return NOT_HELD
    refused = factor_proof.gate(request, tenant_id, username, fields, factors)
    if refused is not None:
        return refused
    if action == "totp_start":
        return _enrol_page(request, username, enrolment.started(tenant_id, username))
    UserFactorStore().remove_totp(tenant_id, username)
    person.acted("factor.removed", tenant_id, user_id, username, factor="totp")
    return messages.Done(REMOVED)


def _enrol_page(request: Request, username: str, secret: str | None, message: str = "") -> Response:
    """The set-up page: the QR code and key of a new secret, or (after a wrong code) the code field alone."""
    csrf, cookie = csrf_fields(request, ACCOUNT)
    form = _CONFIRM.substitute(csrf=csrf)
    shown = messages.alert(message)
    if secret is None:
        return page("Set up a one-time code", f"{shown}\n<p>Enter the next code your app shows, or "
                                              f'<a href="account">start again</a>.</p>\n{form}', cookie)
    return page("Set up a one-time code", _ENROL.substitute(message=shown, form=form,
                                                             shown=enrolment.shown(secret, username, base_url(request))),
                cookie)
