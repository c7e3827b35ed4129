"""The forced password change at sign-in: after an operator's `authgate users reset-password`, the correct
(temporary) password leads to a form choosing a new one, and only then to the code (docs/users.md).

The authorize function keeps no session, so the form carries a change ticket: the tenant and username
just signed in, an expiry (5 minutes) and a nonce, HMAC-SHA256-signed with the stack's session secret
under a purpose label of its own (it is never accepted as a sealed request or CSRF token, nor they as
it). The ticket is good only while the user still must change their password: the change clears
that, so a ticket changes a password once. The form also carries the sealed request and its CSRF
token, checked as for any submission of the consent form.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import json
import secrets
from string import Template
from typing import NamedTuple

from authgate import base64url, clock
from authgate.http.pages import head, messages
from authgate.http.pages.headers import page_headers
from authgate.http.response import Response
from authgate.stores.sealing_key import sealing_key

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
<form method="post" action="authorize" autocomplete="off">
<input type="hidden" name="request_blob" value="$request_blob">
<input type="hidden" name="csrf" value="$csrf">
<input type="hidden" name="change_ticket" value="$ticket">
<input type="hidden" name="decision" value="approve">
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


def render(*, client_name: str, blob: str, csrf: str, ticket: str, redirect_origin: str, minimum: int,
           message: str = "") -> Response:
    """The form; it posts back to the authorization endpoint, whose answer redirects to the client."""
    e = html.escape
    page = _FORM.substitute(head_links=head.links(), client_name=e(client_name), request_blob=e(blob),
                            csrf=e(csrf), ticket=e(ticket), min=minimum,
                            message=messages.alert(message))
    return Response(200, page, page_headers(form_action=[redirect_origin]))
