"""What the device verification page hands the interaction (interaction.handoff; RFC 8628 3.3): the request's
tenant (a tenant that requires `mfa` requires it to approve a device too), and where to come back: a form posting
to `device` with the request's user code and a CSRF nonce that names the step (interaction.pages)."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING

from authgate.interaction import messages, steps
from authgate.interaction.handoff import Back, HandOff, Voice
from authgate.interaction.pages import csrf_state, step_of
from authgate.oauth.device.code_entry import CODE, DECISION, TITLE, log_outcome
from authgate.single_use.device_codes import shown
from authgate.stores.tenant_cache import get_tenant
from authgate.tenants.model import Tenant

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.http.request import Request
    from authgate.single_use.device_codes import DeviceAuthorization

# The `action` the form of each step of the page posts (its nonce names the step; RFC 8628 3.3).
ACTIONS = {CODE: "code", DECISION: "decide", steps.PASSKEY: "decide", steps.FACTOR: "factor", steps.CHANGE: "change",
           steps.UPSTREAM: "upstream", steps.LINK: "link"}


def hand_off(request: Request, record: DeviceAuthorization, code: str, client: Client,
             posted: dict[str, str]) -> HandOff:
    """The hand-off of the request `record` (user code `code`), its pages posting back to this page; `posted`: the
    form this request posted, whose CSRF fields a form of the same step keeps (a step's ticket is bound to them)."""
    name, user_code = html.escape(client.name or client.client_id), html.escape(shown(code))
    asked = f'<strong class="client">{name}</strong> (code <strong class="user-code">{user_code}</strong>)'
    voice = Voice(asker=client.name or client.client_id,
                  factor_lead=(f'<p>Your organisation requires a second factor to approve <strong class="client">{name}'
                               f'</strong>\n(code <strong class="user-code">{user_code}</strong>).</p>'),
                  goal=f"To approve {asked}", approved=asked, button="Approve", passkey_title=TITLE)
    back = Back(action="device", state=_state(request, shown(code), posted), voice=voice,
                log=lambda outcome: log_outcome(outcome, record))
    return HandOff(tenant=get_tenant(record.tenant_id) or Tenant(record.tenant_id), back=back,
                   words=messages.DEVICE, client_id=client.client_id)


def _state(request: Request, user_code: str, posted: dict[str, str]) -> Callable[[str], list[tuple[str, str]]]:
    def state(step: str) -> list[tuple[str, str]]:
        if step_of(posted) == step:
            csrf = [("nonce", posted.get("nonce", "")), ("csrf", posted.get("csrf", ""))]
        else:
            csrf, _cookie = csrf_state(request, step)  # the browser's binding exists: this form was posted with it
        chose = [("decision", "passkey")] if step == steps.PASSKEY else []
        return [("action", ACTIONS[step]), ("user_code", user_code), *csrf, *chose]
    return state
