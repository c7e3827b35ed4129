"""The approval page: GET/POST /oauth/approve (OpenID Connect CIBA Core 1.0 poll mode; docs/ciba.md).

The person opens the single-use link the approval channel sent (oauth.backchannel.channel), sees
the client, the binding message and what is asked in plain words, signs in at level `mfa` —
password, then a one-time code or a recovery code — and approves or denies. A valid session in
this browser already at `mfa` for that same person is enough without the form's sign-in; a
session of someone else refuses the link (approval_wrong_user). A person without a second factor
is told to enrol one on the account page: there is no approval at `password`.

The sign-in is the sign-in page's with a code typed beside the password (oauth.authorization.sign_in.sign_in:
the same failure counters, the account's throttle and the second factor's, in one attempt): a wrong
password or code is one failed sign-in of the account and the address, a wrong code beside a right password
counts toward the factor's lock, and while that lock holds the answer is the same whatever the password.
The link is read on GET (not spent: mail scanners open links) and spent by one conditional write when the
person decides. Forms are CSRF-protected as the account pages are; pages are never cached or framed and
send no Referer (the URL holds the link). Nothing here logs the link, the password or the code.
"""

from __future__ import annotations

import html
import time
from string import Template
from typing import TYPE_CHECKING

from authgate import clock
from authgate.approvals.errors import LinkInvalid
from authgate.assurance import MFA, PASSWORD_AND_CODE_AMR
from authgate.errors import ApiError
from authgate.http.pages import messages
from authgate.issuer import base_url
from authgate.logs import get_logger
from authgate.oauth.authorization.account_forms import csrf_fields, form_fields, page
from authgate.oauth.authorization.sign_in import sign_in
from authgate.oauth.authorization.single_sign_on import authentication_of, current_session
from authgate.oauth.backchannel.asked import what_is_asked
from authgate.oauth.clients.lookup import ClientLookup
from authgate.single_use.authentication import Authentication
from authgate.stores.backchannel_requests import BackchannelRequestStore
from authgate.stores.user_factors import UserFactorStore

if TYPE_CHECKING:
    from authgate.approvals.backchannel_request import BackchannelRequest
    from authgate.clients.model import Client
    from authgate.http.request import Request
    from authgate.http.response import Response
    from authgate.sessions.model import Session

# The longest code kept, as the sign-in form's code field keeps it (a recovery code is 19 characters).
MAX_CODE = 64
WRONG = "The password or the code is wrong."
ENROL = ("Approving needs a second factor, and your account has none yet. Add a one-time code app on your account "
         "page, then open this link again.")

_FORM = Template("""<p><strong>$client</strong> asks you to approve:</p>
<ul class="scopes">
$asked
</ul>
$binding
<p class="fine">Check that this is what you expect before you approve. The request expires at $expires (UTC).</p>
$message
<form method="post" action="approve" autocomplete="off">
<input type="hidden" name="token" value="$token">
$csrf
$sign_in
<div class="actions">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</div>
</form>""")
_SIGN_IN = Template("""$username
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
<label for="code">One-time code or recovery code</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" required>""")
_USERNAME_FIXED = Template('<p>Signing in as <strong>$username</strong>.</p>')
_USERNAME_TYPED = ('<label for="username">Username</label>\n'
                   '<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" '
                   'spellcheck="false" required>')
_SIGNED_IN = Template("<p>You are signed in as <strong>$username</strong> with a second factor.</p>")


def get_approve(request: Request) -> Response:
    """The request and the form, while the link can still be used."""
    token = (request.query.get("token") or [""])[0]
    record, client = _opened(token)
    return _page(request, token, record, client, _session_of(request, record, client))


def post_approve(request: Request) -> Response:
    """Sign in at mfa (or a session already there), spend the link once, record the decision."""
    fields = form_fields(request)
    token, decision = fields.get("token", ""), fields.get("decision", "")
    if decision not in ("approve", "deny"):
        raise ApiError("invalid_request", "Choose Approve or Deny.")
    record, client = _opened(token)
    session = _session_of(request, record, client)
    if session is not None:
        username, signed_in = session.username, authentication_of(session)
    else:
        username = record.username or fields.get("username", "").strip()[:320]
        outcome = _signed_in(request, record, username, fields.get("password", ""), fields.get("code", ""))
        if isinstance(outcome, str):
            return _page(request, token, record, client, None, outcome)
        signed_in = outcome
    store = BackchannelRequestStore()
    store.use_link(token)
    if not store.decide(record.key, username, signed_in, approved=decision == "approve"):
        raise LinkInvalid()
    get_logger().info("backchannel request decided", extra={"tenant": record.tenant_id, "client": record.client_id,
                                                            "approved": decision == "approve"})
    done = "Approved. The application can go on; you may close this page." if decision == "approve" else \
        "Denied. The application is told; you may close this page."
    return page("Done", messages.status(done))


def _opened(token: str) -> tuple[BackchannelRequest, Client]:
    record = BackchannelRequestStore().by_link(token)
    client = ClientLookup().find(record.client_id)
    if client is None:
        raise LinkInvalid()
    return record, client


def _session_of(request: Request, record: BackchannelRequest, client: Client) -> Session | None:
    """This browser's session when it is the request's person at mfa; approval_wrong_user when it is someone else."""
    session = current_session(request, client)
    if session is None:
        return None
    if session.user_id != record.user_id:
        raise ApiError("approval_wrong_user", "Someone else is signed in in this browser. Only the person this "
                                              "request names may approve it: sign out, then open the link again.")
    return session if session.acr == MFA else None


def _signed_in(request: Request, record: BackchannelRequest, username: str, password: str,
               code: str) -> Authentication | str:
    """The person's sign-in at mfa, or the message to show (WRONG, ENROL): the password and the code in ONE attempt
    of the sign-in (sign_in: its failure counters, the account's throttle and the second factor's), as the sign-in
    page's form takes them; a person with no second factor gets ENROL once their password is right."""
    factors = UserFactorStore().factors(record.tenant_id, username)
    code = code.strip()[:MAX_CODE]
    if factors is None or not (factors.totp or factors.recovery_codes_left):
        result = sign_in(record.tenant_id, username, password, request.source_ip)
        return ENROL if result.ok and result.user_id == record.user_id else WRONG
    if not code:
        return WRONG
    result = sign_in(record.tenant_id, username, password, request.source_ip, code)
    if not result.ok or result.user_id != record.user_id:
        return WRONG
    return Authentication(result.user_id, clock.seconds(), MFA, PASSWORD_AND_CODE_AMR, generation=result.generation)


def _page(request: Request, token: str, record: BackchannelRequest, client: Client, session: Session | None,
          message: str = "") -> Response:
    e = html.escape
    csrf, cookie = csrf_fields(request)
    if session is not None:
        signing_in = _SIGNED_IN.substitute(username=e(session.username))
    else:
        who = _USERNAME_FIXED.substitute(username=e(record.username)) if record.username else _USERNAME_TYPED
        signing_in = _SIGN_IN.substitute(username=who)
    body = _FORM.substitute(
        client=e(client.name or client.client_id),
        asked="\n".join(f"<li>{e(line)}</li>" for line in what_is_asked(record, base_url(request))),
        binding=f'<p>The application shows this message: <strong>{e(record.binding_message)}</strong></p>'
        if record.binding_message else "",
        expires=time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(record.expires_at)),
        message=messages.alert(message),
        token=e(token), csrf=csrf, sign_in=signing_in)
    return page("Approve a request", body, cookie)
