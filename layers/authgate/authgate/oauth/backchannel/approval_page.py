"""The approval page: GET/POST /oauth/approve (OpenID Connect CIBA Core 1.0 poll mode; docs/ciba.md).

The person opens the single-use link the approval channel sent (oauth.backchannel.channel), sees
the client, the binding message and what is asked in plain words, signs in at level `mfa` —
password, then a one-time code or a recovery code — and approves or denies. A valid session in
this browser already at `mfa` for that same person is enough without the form's sign-in; a
session of someone else refuses the link (approval_wrong_user). A person without a second factor
is told to enrol one on the account page: there is no approval at `password`.

The sign-in is the interaction's (interaction.password_step), at `mfa` in one form: the password and the code in
one attempt (the same failure counters, the account's throttle and the second factor's): a wrong password or code
is one failed sign-in of the account and the address, a wrong code beside a right password counts toward the
factor's lock, and while that lock holds the answer is the same whatever the password. The page checks none of
them itself: it records the Authentication the interaction gives back. Its forms name their step in their CSRF
nonce (`password`: the sign-in and the decision; `decision`: the decision of a person signed in already); a
session that appeared or ended in between decides, as the page would have.
A person whose tenant offers identity providers may sign in with one instead ("Sign in with <IdP>"): that sign-in
opens a session in this browser (the interaction's `upstream` and `link` steps), which approves only at `mfa` --
the IdP's word where its record trusts it for a second factor, else its record's step-up: authgate's own second
factor (the interaction's `factor` step) or the IdP asked again; the page then asks for the decision alone.
The link is read on GET (not spent: mail scanners open links) and spent by one conditional write when the
person decides. Forms are CSRF-protected as the account pages are; pages are never cached or framed and
send no Referer (the URL holds the link). Nothing here logs the link, the password or the code.
"""

from __future__ import annotations

import html
import time
from string import Template
from typing import TYPE_CHECKING

from authgate.approvals.errors import LinkInvalid
from authgate.assurance import MFA
from authgate.audit import person
from authgate.errors import ApiError
from authgate.http.pages import messages
from authgate.http.response import Response
from authgate.interaction import (
    factor_step,
    password_step,
    sign_in_fields,
    steps,
    upstream_answer,
    upstream_start,
)
from authgate.interaction.handoff import Again, Authentication, Back, HandOff, Voice
from authgate.interaction.messages import APPROVAL
from authgate.interaction.pages import csrf_fields, csrf_state, form_fields, page, step_of
from authgate.interaction.sessions import authentication_of, current_session
from authgate.issuer import base_url
from authgate.logs import get_logger
from authgate.oauth.backchannel.asked import what_is_asked
from authgate.oauth.clients.lookup import ClientLookup
from authgate.stores.backchannel_requests import BackchannelRequestStore
from authgate.stores.identity_provider_cache import sign_in_options
from authgate.tenants.model import Tenant

if TYPE_CHECKING:
    from authgate.approvals.backchannel_request import BackchannelRequest
    from authgate.clients.model import Client
    from authgate.http.request import Request
    from authgate.sessions.model import Session

# The step of the form of a person signed in at mfa already (the sign-in form's is the interaction's `password`).
DECISION = "decision"

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
$decision
</form>""")


def get_approve(request: Request) -> Response:
    """The request and the form, while the link can still be used; a session an identity provider opened for the
    person, below mfa, gets its step-up first."""
    token = (request.query.get("token") or [""])[0]
    record, client = _opened(token)
    step_up = _step_up(request, token, record, client)
    if step_up is not None:
        return step_up
    return _page(request, token, record, client, _session_of(request, record, client))


def post_approve(request: Request) -> Response:
    """Sign in at mfa (or a session already there), spend the link once, record the decision; or a step of an
    identity provider's sign-in (UPSTREAM_STEPS)."""
    fields = form_fields(request, steps.PASSWORD, DECISION, *UPSTREAM_STEPS)
    token, decision = fields.get("token", ""), fields.get("decision", "")
    step = step_of(fields)
    if step in UPSTREAM_STEPS or "upstream" in fields:
        return _upstream(request, fields, step)
    if decision not in ("approve", "deny"):
        raise ApiError("invalid_request", "Choose Approve or Deny.")
    record, client = _opened(token)
    session = _session_of(request, record, client)
    if session is not None:
        signed = authentication_of(session)
    else:
        outcome = password_step.signed_in(request, hand_off(record), fields)
        if isinstance(outcome, Again):
            return _page(request, token, record, client, None, outcome.message)
        if isinstance(outcome, Response):
            return outcome
        signed = outcome
    store = BackchannelRequestStore()
    store.use_link(token)
    if not store.decide(record.key, signed.username, signed.recorded, approved=decision == "approve"):
        raise LinkInvalid()
    get_logger().info("backchannel request decided", extra={"tenant": record.tenant_id, "client": record.client_id,
                                                            "approved": decision == "approve"})
    person.acted("approval.approved" if decision == "approve" else "approval.denied", record.tenant_id,
                 signed.user_id, signed.username, kind="ciba", client_id=record.client_id)
    done = "Approved. The application can go on; you may close this page." if decision == "approve" else \
        "Denied. The application is told; you may close this page."
    return page("Done", messages.status(done))


def hand_off(record: BackchannelRequest) -> HandOff:
    """The approval's hand-off: the request's person (its login_hint named them; nobody else may approve), at mfa in
    one form (a password and a code), no session opened, in the approval page's words (interaction.messages)."""
    return HandOff(tenant=Tenant(record.tenant_id), essential_acr=(MFA,), hinted_sub=record.user_id, username=record.username or None,
                   code="required", session=False, words=APPROVAL, client_id=record.client_id)


def upstream_hand_off(request: Request, token: str, record: BackchannelRequest, client: Client,
                      posted: dict[str, str] | None = None) -> HandOff:
    """The approval's hand-off for a sign-in at an identity provider: the request's person at mfa, as `hand_off`,
    but through steps of their own pages (posting back here with the link's token) and opening a session in this
    browser, which the decision then uses."""
    name = html.escape(client.name or client.client_id)
    voice = Voice(asker=client.name or client.client_id,
                  factor_lead=f"<p>To approve <strong>{name}</strong>'s request, confirm it is you.</p>",
                  goal=f"To approve <strong>{name}</strong>'s request", approved=f"<strong>{name}</strong>'s request",
                  button="Continue")

    def state(step: str) -> list[tuple[str, str]]:
        named = OWN_NAMES.get(step, step)
        if posted is not None and step_of(posted) == named:
            csrf = [("nonce", posted.get("nonce", "")), ("csrf", posted.get("csrf", ""))]
        else:
            csrf, _cookie = csrf_state(request, named)  # the browser's binding exists: a form of this page was posted
        return [("token", token), *csrf]

    return hand_off(record)._replace(back=Back(action="approve", state=state, voice=voice), code="none", session=True)


# The second factor after an identity provider's sign-in, named as this page's own step: a second-factor form of
# another page is stale here.
APPROVAL_FACTOR = "approval-factor"
OWN_NAMES = {steps.FACTOR: APPROVAL_FACTOR}
# The steps of an identity provider's sign-in on this page: its answer, the link page, the second factor after it.
UPSTREAM_STEPS = (steps.UPSTREAM, steps.LINK, APPROVAL_FACTOR)


def _upstream(request: Request, fields: dict[str, str], step: str) -> Response:
    """A step of a sign-in at an identity provider: the IdP chosen (its page), its answer, the link page or the
    second factor; once the person's session is at mfa, the decision page for them (and the session's cookie)."""
    token = fields.get("token", "")
    record, client = _opened(token)
    handoff = upstream_hand_off(request, token, record, client, fields)
    if step == steps.UPSTREAM:
        outcome: Authentication | Again | Response = upstream_answer.signed_in(request, handoff, fields)
    elif step == steps.LINK:
        outcome = upstream_answer.linked(request, handoff, fields)
    elif step == APPROVAL_FACTOR:
        outcome = factor_step.posted(request, handoff, fields, current_session(request, client.tenant_id))
    else:
        outcome = upstream_start.chosen(request, handoff, fields)
    if isinstance(outcome, Again):
        return _page(request, token, record, client, None, outcome.message)
    if isinstance(outcome, Response):
        return outcome
    if outcome.session is None or outcome.acr != MFA or outcome.user_id != record.user_id:
        return _page(request, token, record, client, None, APPROVAL.no_factor)
    response = _page(request, token, record, client, outcome.session)
    if outcome.cookie:
        response.multi_headers.setdefault("Set-Cookie", []).append(outcome.cookie)
    return response


def _step_up(request: Request, token: str, record: BackchannelRequest, client: Client) -> Response | None:
    """The step-up of a session an identity provider opened for the request's person, below mfa: authgate's own
    second factor or the IdP asked again (interaction.factor_step.step_up); None for any other browser."""
    session = current_session(request, client.tenant_id)
    if session is None or session.upstream is None or session.user_id != record.user_id or session.acr == MFA:
        return None
    return factor_step.step_up(request, upstream_hand_off(request, token, record, client), session)


def _opened(token: str) -> tuple[BackchannelRequest, Client]:
    record = BackchannelRequestStore().by_link(token)
    client = ClientLookup().find(record.client_id)
    if client is None:
        raise LinkInvalid()
    return record, client


def _session_of(request: Request, record: BackchannelRequest, client: Client) -> Session | None:
    """This browser's session when it is the request's person at mfa; approval_wrong_user when it is someone else."""
    session = current_session(request, client.tenant_id)
    if session is None:
        return None
    if session.user_id != record.user_id:
        raise ApiError("approval_wrong_user", "Someone else is signed in in this browser. Only the person this "
                                              "request names may approve it: sign out, then open the link again.")
    return session if session.acr == MFA else None


def _page(request: Request, token: str, record: BackchannelRequest, client: Client, session: Session | None,
          message: str = "") -> Response:
    """The request in plain words and its form: the interaction's sign-in fields (or who is signed in already) and
    decision (interaction.sign_in_fields)."""
    e = html.escape
    csrf, cookie = csrf_fields(request, DECISION if session is not None else steps.PASSWORD)
    options = sign_in_options(record.tenant_id) if session is None else ()
    body = _FORM.substitute(
        client=e(client.name or client.client_id),
        asked="\n".join(f"<li>{e(line)}</li>" for line in what_is_asked(record, base_url(request))),
        binding=f'<p>The application shows this message: <strong>{e(record.binding_message)}</strong></p>'
        if record.binding_message else "",
        expires=time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(record.expires_at)),
        message=messages.alert(message), token=e(token), csrf=csrf,
        sign_in=sign_in_fields.fields(hand_off(record), signed_in_as=session.username if session else "",
                                      options=options),
        decision=sign_in_fields.decision(options=options))
    return page("Approve a request", body, cookie)
