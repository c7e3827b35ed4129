"""The device verification page's decision (RFC 8628 3.3, 5.4): who asks for what, Approve or Deny, the approval.

The page shows the client, its organisation, the API and scopes, and the warning to approve only
a device in front of the person (5.4). The approval records the person, the sign-in (acr, amr,
auth_time, sid) and a new grant id, in one conditional write.
"""

from __future__ import annotations

import html
import uuid
from string import Template
from typing import TYPE_CHECKING

from authgate.audit import person
from authgate.http.pages import messages
from authgate.interaction import passkey_page, second_factor_page, sign_in_fields, steps
from authgate.interaction.pages import page
from authgate.interaction.sessions import current_session
from authgate.issuer import base_url
from authgate.oauth.authorization.consent_page import what_is_granted
from authgate.oauth.device.code_entry import DECISION, NO_SUCH_CODE, TITLE, code_page, log_outcome
from authgate.oauth.device.hand_off import hand_off
from authgate.oauth.resource_indicator import resolve
from authgate.single_use.device_codes import DeviceAuthorization, shown
from authgate.stores.device_codes import DeviceCodeStore
from authgate.stores.identity_provider_cache import sign_in_options
from authgate.stores.sessions import SessionStore
from authgate.stores.tenant_cache import get_tenant

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.http.request import Request
    from authgate.http.response import Response
    from authgate.interaction.handoff import Authentication

_DECISION_FORM = Template("""<p class="warning" role="alert">Approve only if you started this on a device that is in
front of you right now and it shows the code <strong class="user-code">$user_code</strong>. If someone sent you this
code or a link to this page, choose Deny: they would get access to your account.</p>
<p><strong class="client">$client_name</strong> is asking for access to <strong>$tenant_name</strong> in
<strong class="resource">$resource_name</strong>:</p>
$resource_about
<ul class="scopes">
$scope_items
</ul>
$message
<form method="post" action="device" autocomplete="on">
$state
$sign_in
$decision
</form>""")
APPROVED = ("You approved the request: return to your device, it will be signed in within a few seconds. You can "
            "close this page.")
DENIED = "You denied the request. You can close this page; the device will be told."


def decision_page(request: Request, record: DeviceAuthorization, user_code: str, client: Client,
                  message: str = "", posted: dict[str, str] | None = None) -> Response:
    """Who asks, for what, the warning of RFC 8628 5.4, and who approves: the session's person, or the interaction's
    sign-in fields; the interaction's decision (interaction.sign_in_fields). `posted`: the form this request
    posted, whose CSRF fields a decision form shown again keeps."""
    e = html.escape
    session = current_session(request, client.tenant_id)
    tenant = get_tenant(record.tenant_id)
    resource_name, resource_about, items = what_is_granted(resolve(record.resource, base_url(request), None),
                                                           tuple(record.scope.split()))
    handoff = hand_off(request, record, user_code, client, posted or {})
    options = sign_in_options(record.tenant_id) if session is None else ()
    body = _DECISION_FORM.substitute(
        user_code=e(shown(user_code)), client_name=e(client.name or client.client_id),
        tenant_name=e(tenant.name if tenant and tenant.name else record.tenant_id), resource_name=resource_name,
        resource_about=resource_about, scope_items=items, message=messages.alert(message),
        state=steps.hidden(handoff.back.state(DECISION)),
        sign_in=sign_in_fields.fields(handoff, signed_in_as=session.username if session else "", options=options),
        decision=sign_in_fields.decision(passkey=session is None and passkey_page.relying_party(request) is not None,
                                         options=options))
    return page(TITLE, body)


def denied(record: DeviceAuthorization) -> Response:
    """Deny (RFC 8628 3.5 access_denied at the device's next poll): no sign-in needed."""
    DeviceCodeStore().decide(record, approved=False)
    log_outcome("denied", record)
    person.acted("approval.denied", record.tenant_id, "", None, kind="device", client_id=record.client_id)
    return page(TITLE, messages.status(DENIED))


def approved(request: Request, record: DeviceAuthorization, signed: Authentication) -> Response:
    """The approval by the person the interaction signed in, recorded with their sign-in session (one conditional
    write); the page saying so, with the recovery codes of an enrolment made on the way, and the session's new
    cookie."""
    session = signed.session
    assert session is not None  # the device page's hand-off opens a session
    store = DeviceCodeStore()
    grant_id = str(uuid.uuid4())
    # The grant ends with the session unless it asked for offline_access (OpenID Connect Core 11), as a code's.
    SessionStore().used_by(session, record.client_id, None if "offline_access" in record.scope.split() else grant_id)
    if not store.decide(record, approved=True, subject=session.username,
                        authentication=signed.recorded, grant_id=grant_id):
        return code_page(request, "", NO_SUCH_CODE)
    log_outcome("approved", record)
    person.acted("approval.approved", session.tenant_id, session.user_id, session.username, kind="device",
                 client_id=record.client_id, scopes=record.scope.split())
    shown_codes = "\n" + second_factor_page.recovery_list(signed.recovery) if signed.recovery else ""
    response = page(TITLE, messages.status(APPROVED) + shown_codes)
    if signed.cookie:
        response.multi_headers.setdefault("Set-Cookie", []).append(signed.cookie)
    return response
