"""The device verification page's code entry (RFC 8628 3.3, 5.1): the form, its attempt limits, the page's log.

The typed code goes through the page's attempt limits (5.1: per host and per network, limits.quota and
limits.networks) before its request is looked up. There is no deployment-wide budget: whoever could spend
it, with enough addresses, would refuse the page to everyone; the code's entropy bounds guessing instead
(docs/delegation.md). Malformed, unknown, expired and used codes get one message (no oracle). Every step
of the page logs through `log_outcome`: ids and outcomes only.
"""

from __future__ import annotations

import html
from string import Template
from typing import TYPE_CHECKING

from authgate.errors import ApiError
from authgate.http.pages import messages
from authgate.interaction.pages import csrf_fields, page
from authgate.limits.counters import digest
from authgate.limits.networks import parties
from authgate.limits.quota import Quota, QuotaSpent
from authgate.logs import get_logger
from authgate.oauth.clients.lookup import ClientLookup

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.http.request import Request
    from authgate.http.response import Response
    from authgate.single_use.device_codes import DeviceAuthorization

TITLE = "Connect a device"
# The steps of the page's own forms (interaction.steps: their nonces name them): the code's, and the decision's.
CODE = "code"
DECISION = "decision"
# RFC 8628 5.1: user-code attempts per host (an IPv4 address, an IPv6 /64) and per network (an IPv4 /24, an
# IPv6 /48), per window. A code lives 10 minutes, across at most 3 windows: a guesser with N networks tries at
# most 300 N of the 20^10 codes in a code's life (6.1; docs/delegation.md gives the odds).
WINDOW = 300
PER_ADDRESS = 30
PER_NETWORK = 100
NO_SUCH_CODE = ("That code is not valid. Check it on your device: codes last 10 minutes and work once; "
                "if it has expired, start again on the device.")

_CODE_FORM = Template("""<p>Enter the code shown on your device.</p>
$message
<form method="post" action="device" autocomplete="off">
<input type="hidden" name="action" value="code">
$csrf
<label for="user_code">Code</label>
<input id="user_code" name="user_code" type="text" autocapitalize="characters" spellcheck="false" required
 autofocus value="$user_code" maxlength="24" placeholder="XXXXX-XXXXX">
<div class="actions">
<button type="submit">Continue</button>
</div>
</form>""")


def within_limits(source_ip: str) -> None:
    """RFC 8628 5.1: a quota of user-code attempts per host and per network; at either, 429 rate_limited."""
    host, network = parties(source_ip)
    quota = Quota("device-user-code", WINDOW)
    try:
        quota.spend(f"device#{digest(host)}", "attempts", PER_ADDRESS)
        quota.spend(f"device-net#{digest(network)}", "attempts", PER_NETWORK)
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
    csrf, cookie = csrf_fields(request, CODE)
    return page(TITLE, _CODE_FORM.substitute(message=messages.alert(message), csrf=csrf,
                                             user_code=html.escape(user_code)),
                cookie)


def log_outcome(outcome: str, record: DeviceAuthorization | None) -> None:
    """The page's log line: ids and outcomes only, never the user code, the username or the password."""
    extra = {"outcome": outcome}
    if record is not None:
        extra.update(client_id=record.client_id, tenant=record.tenant_id)
    get_logger().info("device_verification", extra=extra)
