"""The person's sign-in on the device verification page, to approve (RFC 8628 3.3): a password, or a passkey.

A browser with no sign-in session for the client's tenant signs in on the page: with the
password through every sign-in throttle (oauth.authorization.sign_in), which opens a session; or
with "Approve with a passkey" (where the issuer's host can be a relying party), the username-less
sign-in of the authorization endpoint (oauth.authorization.passkey_sign_in: a discoverable
credential names its user, which must be of the request's tenant and still stand; user
verification required, WebAuthn Level 3 7.2), posted back as action=decide, decision=passkey with
the assertion. That opens a session at `mfa` (amr hwk or swk, user, mfa), which approves with no
further step. Nothing typed is logged.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from authgate.assurance import MFA
from authgate.issuer import base_url
from authgate.oauth.authorization import passkey_page, passkey_sign_in, session_cookie
from authgate.oauth.authorization.consent_page import WRONG_CREDENTIALS
from authgate.oauth.authorization.sign_in import account_of, open_session, sign_in
from authgate.oauth.device.code_entry import TITLE, log_outcome
from authgate.oauth.device.decision import approved, decision_page
from authgate.single_use.device_codes import DeviceAuthorization, shown

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.http.request import Request
    from authgate.http.response import Response
    from authgate.sessions.model import Session

SIGN_IN_FIRST = "Enter your username and password, then choose Approve."
CHANGE_PASSWORD = ("Your administrator asks you to choose a new password first: sign in to an application or to "
                   "your account page, then approve the device again.")


def with_password(request: Request, record: DeviceAuthorization,
                  fields: dict[str, str]) -> str | tuple[str, Session]:
    """(Set-Cookie, session) of a sign-in with the posted password, or the message to show again."""
    username, password = fields.get("username", "").strip()[:320], fields.get("password", "")
    if not username or not password:
        return SIGN_IN_FIRST
    tenant_id, username = account_of(record.tenant_id, "", username)
    result = sign_in(tenant_id, username, password, request.source_ip)
    if not result.ok:
        log_outcome(f"login_{result.reason}", record)
        return WRONG_CREDENTIALS
    if result.must_change_password:
        return CHANGE_PASSWORD
    secret, session = open_session(tenant_id, result)
    return session_cookie.set_cookie(secret, base_url(request)), session


def with_passkey(request: Request, record: DeviceAuthorization, code: str, client: Client,
                 fields: dict[str, str]) -> Response:
    """decision=passkey: the username-less ceremony's page, then (with its assertion) the sign-in it proves, at
    `mfa`, and the approval; a refusal shows the decision page again with passkey_sign_in's message."""
    raw = fields.get("credential", "")
    if not raw:
        options = passkey_sign_in.discoverable_options(request, record.tenant_id)
        if options is None:
            return decision_page(request, record, code, client, passkey_sign_in.REFUSED)
        e = html.escape
        return passkey_page.render(
            title=TITLE, options=options, ceremony="get", action="device",
            fields=(f'<input type="hidden" name="action" value="decide">\n'
                    f'<input type="hidden" name="user_code" value="{e(shown(code))}">\n'
                    f'<input type="hidden" name="nonce" value="{e(fields.get("nonce", ""))}">\n'
                    f'<input type="hidden" name="csrf" value="{e(fields.get("csrf", ""))}">\n'
                    '<input type="hidden" name="decision" value="passkey">'),
            intro=f"<p>Approve <strong class=\"client\">{e(client.name or client.client_id)}</strong> (code "
                  f"<strong class=\"user-code\">{e(shown(code))}</strong>) with a passkey of this organisation: "
                  "your browser or device will ask you to unlock it (a fingerprint, your face or a PIN).</p>",
            button="Use a passkey")
    signed = passkey_sign_in.verified(request, record.tenant_id, raw)
    if signed is None:
        log_outcome("passkey_refused", record)
        return decision_page(request, record, code, client, passkey_sign_in.REFUSED)
    result, tenant_id, amr = signed
    secret, session = open_session(tenant_id, result, acr=MFA, amr=amr)
    return approved(request, record, session, session_cookie.set_cookie(secret, base_url(request)))
