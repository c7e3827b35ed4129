"""The device verification page's code entry (RFC 8628 3.3, 5.1): the form, its attempt limits, the page's log.

The typed code goes through the page's attempt limits (5.1: per address and for the whole
deployment, limits.quota) before its request is looked up. Malformed, unknown, expired and used
codes get one message (no oracle). Every step of the page logs through `log_outcome`: ids and
outcomes only.
"""

from __future__ import annotations

import html
from string import Template
from typing import TYPE_CHECKING

from authgate.errors import ApiError
from authgate.http.pages import messages
from authgate.limits.counters import digest
from authgate.limits.quota import Quota, QuotaSpent
from authgate.logs import get_logger
from authgate.oauth.authorization.account_forms import csrf_fields, page
from authgate.oauth.clients.lookup import ClientLookup

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.http.request import Request
    from authgate.http.response import Response
    from authgate.single_use.device_codes import DeviceAuthorization

TITLE = "Connect a device"
# RFC 8628 5.1: user-code attempts per source address and for the whole deployment, per window. With
# 20^8 codes alive 10 minutes, a guesser at the global quota finds a given code with odds of about
# 2 in 10^6 over its life (docs/delegation.md).
WINDOW = 300
PER_ADDRESS = 30
OVERALL = 3000
NO_SUCH_CODE = ("That code is not valid. Check it on your device: codes last 10 minutes and work once; "
                "if it has expired, start again on the device.")

_CODE_FORM = Template("""<p>Enter the code shown on your device.</p>
$message
<form method="post" action="device" autocomplete="off">
<input type="hidden" name="action" value="code">
$csrf
<label for="user_code">Code</label>
<input id="user_code" name="user_code" type="text" autocapitalize="characters" spellcheck="false" required
 autofocus value="$user_code" maxlength="20" placeholder="XXXX-XXXX">
<div class="actions">
<button type="submit">Continue</button>
</div>
</form>""")


def within_limits(source_ip: str) -> None:
    """RFC 8628 5.1: a quota of user-code attempts per address and overall; at either, 429 rate_limited."""
    try:
        Quota("device-user-code", WINDOW).spend(f"device#{digest(source_ip or 'unknown')}", "attempts", PER_ADDRESS)
        Quota("device-user-code", WINDOW).spend("device#all", "attempts", OVERALL)
    except QuotaSpent as spent:
        raise ApiError("rate_limited", f"Too many codes were tried; retry after {spent.retry_after} seconds.",
                       headers={"Retry-After": str(spent.retry_after)}) from None


def client_of(request: Request, record: DeviceAuthorization | None) -> Client | None:
    """The client of a pending request, while it is still registered for its tenant."""
    if record is None:
        return None
    client = ClientLookup(request.source_ip).find(record.client_id)
    return client if client is not None and client.tenant_id == record.tenant_id else None


def code_page(request: Request, user_code: str, message: str = "") -> Response:
    """The form for the user code (RFC 8628 3.3), with `message` above it."""
    csrf, cookie = csrf_fields(request)
    return page(TITLE, _CODE_FORM.substitute(message=messages.alert(message), csrf=csrf,
                                             user_code=html.escape(user_code)),
                cookie)


def log_outcome(outcome: str, record: DeviceAuthorization | None) -> None:
    """The page's log line: ids and outcomes only, never the user code, the username or the password."""
    extra = {"outcome": outcome}
    if record is not None:
        extra.update(client_id=record.client_id, tenant=record.tenant_id)
    get_logger().info("device_verification", extra=extra)
