"""GET/POST /oauth/device: the verification page of the device authorization grant (RFC 8628 3.3, 5.1, 5.4).

1. GET shows the form for the user code, filled in from `verification_uri_complete`'s query: the
   person still confirms it (5.4: nothing happens on a link alone).
2. POST action=code: the typed code, through the page's attempt limits (code_entry), then the
   request it belongs to, if pending, shown for a decision (decision).
3. POST action=decide: the code again (same limits), the decision; deny needs no sign-in; approve
   needs the person signed in: the browser's sign-in session for the client's tenant when there is
   one (single sign-on, no password asked), else a sign-in on the page, with the password or a
   passkey (person_sign_in).
4. A tenant that requires `mfa` requires it to approve a device too: a session below `mfa` gets the
   second-factor step first; POST action=factor checks it and approves (factor_step).

Forms are CSRF-protected as the account pages' are (interaction.pages); pages are
never cached or framed. Nothing typed (code, password) is logged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.interaction.pages import form_fields
from authgate.interaction.sessions import current_session
from authgate.oauth.device.code_entry import (
    NO_SUCH_CODE,
    client_of,
    code_page,
    log_outcome,
    within_limits,
)
from authgate.oauth.device.decision import approved, decision_page, denied
from authgate.oauth.device.factor_step import factor_given, factor_page, step_needed
from authgate.oauth.device.person_sign_in import with_passkey, with_password
from authgate.single_use.device_codes import normalised, shown
from authgate.stores.device_codes import DeviceCodeStore

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.http.response import Response


def get_device(request: Request) -> Response:
    """The form for the user code, filled in when the link carried one (verification_uri_complete, RFC 8628 3.3.1)."""
    typed = request.query.get("user_code") or [""]
    code = normalised(typed[0])
    return code_page(request, shown(code) if code else "")


def post_device(request: Request) -> Response:
    """action=code: the code's request, shown for a decision; action=decide: the decision; action=factor: the
    second factor a tenant requiring mfa asks before the approval (RFC 8628 3.3)."""
    fields = form_fields(request)
    typed = fields.get("user_code", "")
    within_limits(request.source_ip)
    code = normalised(typed)
    record = DeviceCodeStore().pending(code) if code else None
    client = client_of(request, record)
    if record is None or code is None or client is None:
        log_outcome("unknown_code", None)
        return code_page(request, "", NO_SUCH_CODE)
    if fields.get("action") == "factor":
        return factor_given(request, record, code, client, fields)
    if fields.get("action") != "decide":
        return decision_page(request, record, code, client)
    decision = fields.get("decision")
    if decision == "deny":
        return denied(record)
    if decision == "passkey":
        return with_passkey(request, record, code, client, fields)
    if decision != "approve":
        return decision_page(request, record, code, client, "Choose Approve or Deny.")
    session = current_session(request, client.tenant_id)
    cookie = None
    if session is None:
        signed = with_password(request, record, fields)
        if isinstance(signed, str):
            return decision_page(request, record, code, client, signed)
        cookie, session = signed
    step = step_needed(request, record, session)
    if step is None:
        return approved(request, record, session, cookie)
    response = factor_page(request, record, code, client, session, step)
    if cookie:
        response.multi_headers.setdefault("Set-Cookie", []).append(cookie)
    return response
