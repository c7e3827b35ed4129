"""The second-factor step of a device approval, for a tenant that requires `mfa` (RFC 8628 3.3).

A tenant that requires `mfa` for every sign-in (`authgate tenants update --require-mfa`) requires it
to approve a device too: a session below `mfa` gets the second-factor step of the authorization
endpoint (oauth.authorization.second_factor: its sealed ticket, bound to the session and the form;
a TOTP or recovery code, through the second factor's throttle, or one of the person's passkeys), or the
forced TOTP enrolment when the person has neither; POST action=factor checks it, raises the session
(a new secret, the same sid) and approves. "Use a passkey instead" (where the issuer's host can be a
relying party, for a person who has one) shows the step's ceremony page (WebAuthn Level 3 7.2: only
the person's passkeys allowed, user verification required, a single-use challenge bound to this
browser and the person, oauth.authorization.passkey_sign_in), which posts action=factor back with
the assertion and the same ticket; the session is raised as by a code, with `amr` hwk or swk, user
and mfa added to the password's pwd.
"""

from __future__ import annotations

import html
from string import Template
from typing import TYPE_CHECKING

from authgate.assurance import MFA, satisfies
from authgate.http.pages import messages
from authgate.issuer import base_url
from authgate.oauth.authorization import (
    passkey_page,
    passkey_sign_in,
    second_factor,
    second_factor_page,
    session_cookie,
    single_sign_on,
)
from authgate.oauth.authorization.account_forms import csrf_token_fields, page
from authgate.oauth.device.code_entry import log_outcome
from authgate.oauth.device.decision import approved, decision_page
from authgate.single_use.device_codes import DeviceAuthorization, shown
from authgate.stores.passkeys import PasskeyStore
from authgate.stores.tenant_cache import get_tenant
from authgate.stores.user_factors import UserFactorStore

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.http.request import Request
    from authgate.http.response import Response
    from authgate.sessions.model import Session

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


def step_needed(request: Request, record: DeviceAuthorization, session: Session) -> second_factor.Kind | None:
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


def factor_page(request: Request, record: DeviceAuthorization, code: str, client: Client, session: Session,
                kind: second_factor.Kind, message: str = "", secret: str | None = None) -> Response:
    """The second-factor step of the approval: a code, or an enrolment (a pending TOTP secret, kept when shown
    again after a wrong code)."""
    if kind == "enrol" and secret is None:
        secret = UserFactorStore().start_totp(session.tenant_id, session.username)
    csrf, token, cookie = csrf_token_fields(request)
    ticket = second_factor.step_ticket(kind=kind, session=session, csrf=token, approved=True, secret=secret)
    title, intro = second_factor_page.explained(kind=kind, session=session, issuer=base_url(request), secret=secret)
    e = html.escape
    offer = kind == "code" and _passkeys_usable(request, session)
    body = _FACTOR_FORM.substitute(client_name=e(client.name or client.client_id), user_code=e(shown(code)),
                                   intro=intro, message=messages.alert(message), csrf=csrf, ticket=e(ticket),
                                   passkey=_USE_PASSKEY if offer else "")
    return page(title, body, cookie)


def factor_given(request: Request, record: DeviceAuthorization, code: str, client: Client,
                 fields: dict[str, str]) -> Response:
    """POST action=factor: the step's code checked (second_factor.submitted), the session raised, the approval."""
    session = single_sign_on.current_session(request, client)
    try:
        if session is None:
            raise second_factor.StepInvalid("no session")
        outcome = second_factor.submitted(request, {k: [v] for k, v in fields.items()}, session)
    except second_factor.StepInvalid:
        log_outcome("factor_step_invalid", record)
        return decision_page(request, record, code, client, STEP_ENDED)
    if outcome.passkey:
        ceremony = _passkey_ceremony(request, code, client, session, fields)
        if ceremony is not None:
            return ceremony
    if outcome.raised is None:
        log_outcome("factor_invalid", record)
        return factor_page(request, record, code, client, session, outcome.kind, outcome.message, outcome.secret)
    secret, raised = outcome.raised
    return approved(request, record, raised, session_cookie.set_cookie(secret, base_url(request)),
                    outcome.recovery)


def _passkeys_usable(request: Request, session: Session) -> bool:
    """Whether the person holds a passkey and this issuer's host can be its relying party (WebAuthn 5.1.3)."""
    return passkey_page.relying_party(request) is not None and bool(
        PasskeyStore().of_user(session.tenant_id, session.username))


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
