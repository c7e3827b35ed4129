"""GET/POST /oauth/device: the verification page of the device authorization grant (RFC 8628 3.3, 5.1, 5.4).

1. GET shows the form for the user code, filled in from `verification_uri_complete`'s query: the
   person still confirms it (5.4: nothing happens on a link alone).
2. POST action=code: the typed code, through the page's attempt limits (5.1: per address and for
   the whole deployment, limits.quota), then the request it belongs to, if pending: the client, its
   organisation, the API and scopes, and the warning to approve only a device in front of them
   (5.4). Malformed, unknown, expired and used codes get one message (no oracle).
3. POST action=decide: the code again (same limits), the decision; deny needs no sign-in; approve
   needs the person signed in: the browser's sign-in session for the client's tenant when there is
   one (single sign-on, no password asked), else the password through every sign-in throttle
   (oauth.authorization.sign_in), which opens a session. The approval records the person, the
   sign-in (acr, amr, auth_time, sid) and a new grant id, in one conditional write.
4. A tenant that requires `mfa` for every sign-in (`authgate tenants update --require-mfa`) requires it to
   approve a device too: a session below `mfa` gets the second-factor step of the authorization endpoint
   (oauth.authorization.second_factor: its sealed ticket, bound to the session and the form; a TOTP or
   recovery code, through the account's throttle, or one of the person's passkeys), or the forced TOTP
   enrolment when the person has neither; POST action=factor checks it, raises the session (a new secret,
   the same sid) and approves.
5. "Use a passkey instead" (where the issuer's host can be a relying party, for a person who has one):
   the step's ceremony page (WebAuthn Level 3 7.2: only the person's passkeys allowed, user verification
   required, a single-use challenge bound to this browser and the person, oauth.authorization.passkey_sign_in)
   posts action=factor back with the assertion and the same ticket; the session is raised as by a code, with
   `amr` hwk or swk, user and mfa added to the password's pwd.
6. "Approve with a passkey" (a browser with no session, where the issuer's host can be a relying party):
   the username-less sign-in of the authorization endpoint (oauth.authorization.passkey_sign_in: a
   discoverable credential names its user, which must be of the request's tenant and still stand; user
   verification required), posted back as action=decide, decision=passkey with the assertion. It opens a
   session at `mfa` (amr hwk or swk, user, mfa), which approves with no further step.

Forms are CSRF-protected as the account pages' are (oauth.authorization.account_forms); pages are
never cached or framed. Nothing typed (code, password) is logged.
"""

from __future__ import annotations

import html
import uuid
from string import Template
from typing import TYPE_CHECKING

from authgate.errors import ApiError
from authgate.http.response import Response
from authgate.issuer import base_url
from authgate.limits.counters import digest
from authgate.limits.quota import Quota, QuotaSpent
from authgate.logs import get_logger
from authgate.oauth.authorization import (
    passkey_page,
    passkey_sign_in,
    second_factor,
    session_cookie,
    single_sign_on,
)
from authgate.oauth.authorization.account_forms import (
    csrf_fields,
    csrf_token_fields,
    form_fields,
    page,
)
from authgate.oauth.authorization.consent_page import WRONG_CREDENTIALS, what_is_granted
from authgate.oauth.authorization.sign_in import account_of, open_session, sign_in
from authgate.oauth.clients.lookup import ClientLookup
from authgate.oauth.resource_indicator import resolve
from authgate.single_use.device_codes import DeviceAuthorization, normalised, shown
from authgate.stores.device_codes import DeviceCodeStore
from authgate.stores.passkeys import PasskeyStore
from authgate.stores.sessions import SessionStore
from authgate.stores.tenant_cache import get_tenant
from authgate.stores.user_factors import UserFactorStore
from authgate.users.assurance import MFA, satisfies

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.http.request import Request
    from authgate.sessions.model import Session

TITLE = "Connect a device"
# RFC 8628 5.1: user-code attempts per source address and for the whole deployment, per window. With
# 20^8 codes alive 10 minutes, a guesser at the global quota finds a given code with odds of about
# 2 in 10^6 over its life (docs/delegation.md).
WINDOW = 300
PER_ADDRESS = 30
OVERALL = 3000
NO_SUCH_CODE = ("That code is not valid. Check it on your device: codes last 10 minutes and work once; "
                "if it has expired, start again on the device.")
SIGN_IN_FIRST = "Enter your username and password, then choose Approve."
CHANGE_PASSWORD = ("Your administrator asks you to choose a new password first: sign in to an application or to "
                   "your account page, then approve the device again.")

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
<input type="hidden" name="action" value="decide">
<input type="hidden" name="user_code" value="$user_code">
$csrf
$credentials
<div class="actions">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" formnovalidate class="secondary">Deny</button>
$passkey
</div>
</form>""")
_APPROVE_WITH_PASSKEY = ('<button type="submit" name="decision" value="passkey" formnovalidate class="secondary">'
                         "Approve with a passkey</button>")
_CREDENTIALS = """<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>"""
_SIGNED_IN = Template('<p class="signed-in">Signed in as <strong>$username</strong>.</p>')
STEP_ENDED = "The second-factor step expired or was used already. Choose Approve again."
_FACTOR_FORM = Template("""<p>Your organisation requires a second factor to approve <strong class="client">$client_name</strong>
(code <strong class="user-code">$user_code</strong>).</p>
$intro
$message
<form method="post" action="device" autocomplete="off">
<input type="hidden" name="action" value="factor">
<input type="hidden" name="user_code" value="$user_code">
$csrf
<input type="hidden" name="factor_ticket" value="$ticket">
<label for="code">Code</label>
<input id="code" name="code" type="text" inputmode="text" autocomplete="one-time-code" maxlength="64" required autofocus>
<div class="actions">
<button type="submit">Approve</button>
$passkey
</div>
</form>""")
_USE_PASSKEY = ('<button type="submit" name="use" value="passkey" formnovalidate class="secondary">'
                "Use a passkey instead</button>")
_APPROVED = ('<p class="message" role="status">You approved the request: return to your device, '
             "it will be signed in within a few seconds. You can close this page.</p>")


def get_device(request: Request) -> Response:
    """The form for the user code, filled in when the link carried one (verification_uri_complete, RFC 8628 3.3.1)."""
    typed = request.query.get("user_code") or [""]
    code = normalised(typed[0])
    return _code_page(request, shown(code) if code else "")


def post_device(request: Request) -> Response:
    """action=code: the code's request, shown for a decision; action=decide: the decision; action=factor: the
    second factor a tenant requiring mfa asks before the approval."""
    fields = form_fields(request)
    typed = fields.get("user_code", "")
    _within_limits(request.source_ip)
    code = normalised(typed)
    store = DeviceCodeStore()
    record = store.pending(code) if code else None
    client = _client_of(request, record)
    if record is None or code is None or client is None:
        _log("unknown_code", None)
        return _code_page(request, "", NO_SUCH_CODE)
    if fields.get("action") == "factor":
        return _factor_given(request, record, code, client, fields)
    if fields.get("action") != "decide":
        return _decision_page(request, record, code, client)
    decision = fields.get("decision")
    if decision == "deny":
        store.decide(record, approved=False)
        _log("denied", record)
        return page(TITLE, '<p class="message" role="status">You denied the request. You can close this page; '
                           "the device will be told.</p>")
    if decision == "passkey":
        return _passkey_sign_in(request, record, code, client, fields)
    if decision != "approve":
        return _decision_page(request, record, code, client, "Choose Approve or Deny.")
    session = single_sign_on.current_session(request, client)
    cookie = None
    if session is None:
        signed = _signed_in(request, record, fields)
        if isinstance(signed, str):
            return _decision_page(request, record, code, client, signed)
        cookie, session = signed
    step = _step_needed(request, record, session)
    if step is not None:
        response = _factor_page(request, record, code, client, session, step)
        if cookie:
            response.multi_headers.setdefault("Set-Cookie", []).append(cookie)
        return response
    return _approved(request, record, session, cookie)


def _approved(request: Request, record: DeviceAuthorization, session: Session, cookie: str | None,
              recovery: tuple[str, ...] = ()) -> Response:
    """The approval by `session`'s person, recorded with its sign-in (one conditional write); the page saying so."""
    store = DeviceCodeStore()
    grant_id = str(uuid.uuid4())
    # The grant ends with the session unless it asked for offline_access (OpenID Connect Core 11), as a code's.
    SessionStore().used_by(session, record.client_id, None if "offline_access" in record.scope.split() else grant_id)
    if not store.decide(record, approved=True, subject=session.username,
                        authentication=single_sign_on.authentication_of(session), grant_id=grant_id):
        return _code_page(request, "", NO_SUCH_CODE)
    _log("approved", record)
    response = page(TITLE, _APPROVED + ("\n" + second_factor.recovery_list(recovery) if recovery else ""))
    if cookie:
        response.multi_headers.setdefault("Set-Cookie", []).append(cookie)
    return response


def _step_needed(request: Request, record: DeviceAuthorization, session: Session) -> second_factor.Kind | None:
    """The step a session lacks to approve: none unless the tenant requires `mfa`; then a code (or a passkey) when
    the person holds an authenticator app or a passkey this issuer can use (one GetItem of their factors and one
    Query of their passkeys, only below `mfa`), else the forced enrolment."""
    tenant = get_tenant(record.tenant_id)
    if tenant is None or not tenant.require_mfa or satisfies(session.acr, MFA):
        return None
    factors = UserFactorStore().factors(session.tenant_id, session.username)
    if factors is not None and factors.totp or _passkeys_usable(request, session):
        return "code"
    return "enrol"


def _passkeys_usable(request: Request, session: Session) -> bool:
    """Whether the person holds a passkey and this issuer's host can be its relying party (WebAuthn 5.1.3)."""
    return passkey_page.relying_party(request) is not None and bool(
        PasskeyStore().of_user(session.tenant_id, session.username))


def _factor_page(request: Request, record: DeviceAuthorization, code: str, client: Client, session: Session,
                 kind: second_factor.Kind, message: str = "", secret: str | None = None) -> Response:
    """The second-factor step of the approval: a code, or an enrolment (a pending TOTP secret, kept when shown
    again after a wrong code)."""
    if kind == "enrol" and secret is None:
        secret = UserFactorStore().start_totp(session.tenant_id, session.username)
    csrf, token, cookie = csrf_token_fields(request)
    ticket = second_factor.step_ticket(kind=kind, session=session, csrf=token, approved=True, secret=secret)
    title, intro = second_factor.explained(kind=kind, session=session, issuer=base_url(request), secret=secret)
    e = html.escape
    offer = kind == "code" and _passkeys_usable(request, session)
    body = _FACTOR_FORM.substitute(client_name=e(client.name or client.client_id), user_code=e(shown(code)),
                                   intro=intro, message=_message(message), csrf=csrf, ticket=e(ticket),
                                   passkey=_USE_PASSKEY if offer else "")
    return page(title, body, cookie)


def _passkey_ceremony(request: Request, code: str, client: Client, session: Session,
                      fields: dict[str, str]) -> Response | None:
    """The passkey's ceremony for the step (passkey_sign_in.own_options: the person's passkeys, user verification
    required), posting action=factor back with the same ticket and CSRF fields; None when none can be used."""
    options = passkey_sign_in.own_options(request, session.tenant_id, session.username)
    if options is None or not _passkeys_usable(request, session):
        return None
    e = html.escape
    carried = "\n".join(f'<input type="hidden" name="{name}" value="{e(fields.get(name, ""))}">'
                        for name in ("nonce", "csrf", "factor_ticket"))
    return passkey_page.render(
        title="Second factor", options=options, ceremony="get", action="device",
        fields=f'<input type="hidden" name="action" value="factor">\n'
               f'<input type="hidden" name="user_code" value="{e(shown(code))}">\n{carried}',
        intro=f"<p>To approve <strong class=\"client\">{e(client.name or client.client_id)}</strong> (code "
              f"<strong class=\"user-code\">{e(shown(code))}</strong>), confirm it is you with one of your "
              "passkeys: your browser or device will ask you to unlock it.</p>",
        button="Use a passkey")


def _factor_given(request: Request, record: DeviceAuthorization, code: str, client: Client,
                  fields: dict[str, str]) -> Response:
    """POST action=factor: the step's code checked (second_factor.submitted), the session raised, the approval."""
    session = single_sign_on.current_session(request, client)
    try:
        if session is None:
            raise second_factor.StepInvalid("no session")
        outcome = second_factor.submitted(request, {k: [v] for k, v in fields.items()}, session)
    except second_factor.StepInvalid:
        _log("factor_step_invalid", record)
        return _decision_page(request, record, code, client, STEP_ENDED)
    if outcome.passkey:
        ceremony = _passkey_ceremony(request, code, client, session, fields)
        if ceremony is not None:
            return ceremony
    if outcome.raised is None:
        _log("factor_invalid", record)
        return _factor_page(request, record, code, client, session, outcome.kind, outcome.message, outcome.secret)
    secret, raised = outcome.raised
    return _approved(request, record, raised, session_cookie.set_cookie(secret, base_url(request)),
                     outcome.recovery)


def _passkey_sign_in(request: Request, record: DeviceAuthorization, code: str, client: Client,
                     fields: dict[str, str]) -> Response:
    """decision=passkey: the username-less ceremony's page, then (with its assertion) the sign-in it proves, at
    `mfa`, and the approval; a refusal shows the decision page again with passkey_sign_in's message."""
    raw = fields.get("credential", "")
    if not raw:
        options = passkey_sign_in.discoverable_options(request, record.tenant_id)
        if options is None:
            return _decision_page(request, record, code, client, passkey_sign_in.REFUSED)
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
        _log("passkey_refused", record)
        return _decision_page(request, record, code, client, passkey_sign_in.REFUSED)
    result, tenant_id, amr = signed
    secret, session = open_session(tenant_id, result, acr=MFA, amr=amr)
    return _approved(request, record, session, session_cookie.set_cookie(secret, base_url(request)))


def _within_limits(source_ip: str) -> None:
    """RFC 8628 5.1: a quota of user-code attempts per address and overall; at either, 429 rate_limited."""
    try:
        Quota("device-user-code", WINDOW).spend(f"device#{digest(source_ip or 'unknown')}", "attempts", PER_ADDRESS)
        Quota("device-user-code", WINDOW).spend("device#all", "attempts", OVERALL)
    except QuotaSpent as spent:
        raise ApiError("rate_limited", f"Too many codes were tried; retry after {spent.retry_after} seconds.",
                       headers={"Retry-After": str(spent.retry_after)}) from None


def _client_of(request: Request, record: DeviceAuthorization | None) -> Client | None:
    """The client of a pending request, while it is still registered for its tenant."""
    if record is None:
        return None
    client = ClientLookup(request.source_ip).find(record.client_id)
    return client if client is not None and client.tenant_id == record.tenant_id else None


def _signed_in(request: Request, record: DeviceAuthorization, fields: dict[str, str]) -> str | tuple[str, Session]:
    """(Set-Cookie, session) of a sign-in with the posted password, or the message to show again."""
    username, password = fields.get("username", "").strip()[:320], fields.get("password", "")
    if not username or not password:
        return SIGN_IN_FIRST
    tenant_id, username = account_of(record.tenant_id, "", username)
    result = sign_in(tenant_id, username, password, request.source_ip)
    if not result.ok:
        _log(f"login_{result.reason}", record)
        return WRONG_CREDENTIALS
    if result.must_change_password:
        return CHANGE_PASSWORD
    secret, session = open_session(tenant_id, result)
    return session_cookie.set_cookie(secret, base_url(request)), session


def _code_page(request: Request, user_code: str, message: str = "") -> Response:
    csrf, cookie = csrf_fields(request)
    return page(TITLE, _CODE_FORM.substitute(message=_message(message), csrf=csrf, user_code=html.escape(user_code)),
                cookie)


def _decision_page(request: Request, record: DeviceAuthorization, user_code: str, client: Client,
                   message: str = "") -> Response:
    """Who asks, for what, the warning of RFC 8628 5.4, and who approves (the session's person, or the sign-in)."""
    e = html.escape
    session = single_sign_on.current_session(request, client)
    tenant = get_tenant(record.tenant_id)
    resource_name, resource_about, items = what_is_granted(resolve(record.resource, base_url(request), None),
                                                           tuple(record.scope.split()))
    csrf, cookie = csrf_fields(request)
    body = _DECISION_FORM.substitute(
        user_code=e(shown(user_code)), client_name=e(client.name or client.client_id),
        tenant_name=e(tenant.name if tenant and tenant.name else record.tenant_id), resource_name=resource_name,
        resource_about=resource_about, scope_items=items, message=_message(message), csrf=csrf,
        credentials=_SIGNED_IN.substitute(username=e(session.username)) if session else _CREDENTIALS,
        passkey=_APPROVE_WITH_PASSKEY if session is None and passkey_page.relying_party(request) else "")
    return page(TITLE, body, cookie)


def _message(text: str) -> str:
    return f'<p class="message" role="alert">{html.escape(text)}</p>' if text else ""


def _log(outcome: str, record: DeviceAuthorization | None) -> None:
    # Ids and outcomes only: never the user code, the username or the password.
    extra = {"outcome": outcome}
    if record is not None:
        extra.update(client_id=record.client_id, tenant=record.tenant_id)
    get_logger().info("device_verification", extra=extra)
