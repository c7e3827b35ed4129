"""The `change` step: the forced password change at sign-in. After an operator's `authgate users reset-password`,
the correct (temporary) password leads to a form choosing a new one, and only then back to the flow (docs/users.md).

The interaction keeps no session, so the form carries a change ticket: the tenant and username
just signed in, an expiry (5 minutes) and a nonce, HMAC-SHA256-signed with the stack's session secret
under a purpose label of its own (it is never accepted as a sealed request or CSRF token, nor they as
it). The ticket is good only while the user still must change their password: the change clears
that, so a ticket changes a password once. The form also carries the flow's own state (its sealed
request and CSRF token at the authorization endpoint), checked as for any submission of its form.
Once changed, the step ends as every step ends (interaction.outcome), at `password`.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import json
import secrets
from collections.abc import Mapping
from string import Template
from typing import TYPE_CHECKING, NamedTuple

from authgate import base64url, clock
from authgate.audit import person
from authgate.errors import ApiError
from authgate.http.pages import head, messages
from authgate.http.pages.headers import page_headers
from authgate.http.response import Response
from authgate.interaction import outcome, steps
from authgate.interaction.handoff import Authentication
from authgate.interaction.messages import STALE_FORM
from authgate.stores.sealing_key import sealing_key
from authgate.stores.users import UserStore
from authgate.users.model import LoginResult
from authgate.users.passwords import MIN_PASSWORD, password_problem

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.interaction.handoff import HandOff

TICKET_TTL = 300

_FORM = Template("""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Choose a new password</title>
$head_links
</head>
<body>
<main>
<h1>Choose a new password</h1>
<p>Your password was reset by an administrator. Choose a new one of at least $min characters to continue to
<strong>$client_name</strong>.</p>
$message
<form method="post" action="$action" autocomplete="off">
$hidden
<label for="new_password">New password</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" minlength="$min" required autofocus>
<label for="confirm">New password, again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="$min" required>
<div class="actions">
<button type="submit">Change the password and continue</button>
</div>
</form>
</main>
</body>
</html>
""")


class TicketInvalid(Exception):
    """A change ticket that is missing, altered or expired."""


class Ticket(NamedTuple):
    tenant_id: str
    username: str


def _mac(data: bytes) -> bytes:
    return hmac.new(sealing_key(), b"password-change\x00" + data, hashlib.sha256).digest()


def issue(tenant_id: str, username: str) -> str:
    """A ticket for the account just signed in with its temporary password."""
    data = json.dumps({"t": tenant_id, "u": username, "exp": clock.seconds() + TICKET_TTL,
                       "n": secrets.token_urlsafe(12)}, separators=(",", ":")).encode("utf-8")
    return f"{base64url.encode(data)}.{base64url.encode(_mac(data))}"


def redeem(ticket: str) -> Ticket:
    """The account a valid ticket names; TicketInvalid otherwise (whether the change is still due is the
    caller's: the user's must_change_password)."""
    try:
        data_part, mac_part = ticket.split(".")
        data, mac = base64url.decode(data_part), base64url.decode(mac_part)
    except ValueError:
        raise TicketInvalid("malformed change ticket") from None
    if len(ticket) > 2048 or not hmac.compare_digest(mac, _mac(data)):
        raise TicketInvalid("change ticket signature does not verify")
    payload = json.loads(data)
    if int(payload["exp"]) <= clock.seconds():
        raise TicketInvalid("change ticket expired")
    return Ticket(str(payload["t"]), str(payload["u"]))


def form(handoff: HandOff, ticket: str, message: str = "") -> Response:
    """The form choosing the new password; it posts back to the flow's `change` step with its state and the ticket."""
    back = handoff.back
    page = _FORM.substitute(head_links=head.links(), client_name=html.escape(back.voice.asker), action=back.action,
                            hidden=steps.hidden(back.state(steps.CHANGE), [("change_ticket", ticket)]),
                            min=MIN_PASSWORD, message=messages.alert(message))
    return Response(200, page, page_headers(form_action=[back.leads_to]))


def changed(request: Request, handoff: HandOff, fields: Mapping[str, str]) -> Authentication | Response:
    """The posted form: the new password of a forced change set, then the step ended as every step ends; the form
    again when the new password is not acceptable; the stale form (invalid_request) when the ticket does not hold,
    is another tenant's, or no change is due any more."""
    raw = fields.get("change_ticket", "")
    try:
        ticket = redeem(raw)
    except TicketInvalid as exc:
        raise ApiError("invalid_request", STALE_FORM, internal=str(exc)) from None
    if handoff.tenant.tenant_id and ticket.tenant_id != handoff.tenant.tenant_id:
        raise ApiError("invalid_request", STALE_FORM, internal="change ticket of another tenant")
    new, confirm = fields.get("new_password", ""), fields.get("confirm", "")
    problem = password_problem(new, ticket.username) or ("The two passwords differ." if new != confirm else "")
    if problem:
        return form(handoff, raw, problem)
    store = UserStore()
    user = store.get(ticket.tenant_id, ticket.username)
    if user is None or user.disabled or not user.must_change_password:
        raise ApiError("invalid_request", STALE_FORM, internal="no password change due")
    done = store.change_password(ticket.tenant_id, ticket.username, new)
    person.acted("password.changed", ticket.tenant_id, done.user_id, done.username, forced=True)
    result = LoginResult(True, "ok", subject=ticket.username, user_id=user.user_id, generation=done.session_generation)
    return outcome.finish(request, handoff, ticket.tenant_id, result)
