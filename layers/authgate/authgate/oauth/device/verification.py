"""GET/POST /oauth/device: the verification page of the device authorization grant (RFC 8628 3.3, 5.1, 5.4).

1. GET shows the form for the user code, filled in from `verification_uri_complete`'s query: the
   person still confirms it (5.4: nothing happens on a link alone).
2. Every POST: its CSRF fields (interaction.pages: the nonce names the form's step, which the token
   seals), the typed code through the page's attempt limits (code_entry), then the request it belongs
   to, if pending. Then the form's step (STEPS), never which fields it happens to carry; a form whose
   `action` is not its step's is stale.
3. `code`: the request shown for a decision (decision). `decision`: deny needs no sign-in; approve
   needs the person signed in: the browser's sign-in session for the client's tenant when there is
   one (single sign-on, no password asked), else the interaction's sign-in on the page (a password,
   or "Approve with a passkey": the interaction's `passkey` step). A tenant that requires `mfa`
   requires it to approve a device too: the interaction's second-factor step comes first
   (`factor`), and a password an operator reset its forced change (`change`). "Sign in with <IdP>" (or an email
   whose domain an IdP claims) signs in there: its answer comes back as `upstream`, and the link page of an account
   the person already has as `link` (interaction.upstream_answer).

The page checks no password, code or passkey itself: it hands off to the interaction (hand_off) and
approves with the Authentication it gives back. Pages are never cached or framed. Nothing typed (code,
password) is logged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from authgate.errors import ApiError
from authgate.http.response import Response
from authgate.interaction import (
    factor_step,
    passkey_step,
    password_change,
    password_step,
    steps,
    upstream_answer,
    upstream_start,
)
from authgate.interaction.handoff import Again, Authentication, HandOff
from authgate.interaction.messages import MISSING_DECISION
from authgate.interaction.pages import STALE, posted_step, step_of
from authgate.interaction.sessions import authentication_of, current_session
from authgate.oauth.device.code_entry import (
    CODE,
    DECISION,
    NO_SUCH_CODE,
    client_of,
    code_page,
    log_outcome,
    within_limits,
)
from authgate.oauth.device.decision import approved, decision_page, denied
from authgate.oauth.device.hand_off import ACTIONS, hand_off
from authgate.single_use.device_codes import normalised, shown
from authgate.stores.device_codes import DeviceCodeStore

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.http.request import Request
    from authgate.single_use.device_codes import DeviceAuthorization

class Posted(NamedTuple):
    """A form of the page, checked: the pending request its user code names, and the client asking."""

    request: Request
    fields: dict[str, str]
    record: DeviceAuthorization
    code: str
    client: Client

    def hand_off(self) -> HandOff:
        return hand_off(self.request, self.record, self.code, self.client, self.fields)

    def page(self, message: str = "") -> Response:
        """The decision page again, with `message`."""
        return decision_page(self.request, self.record, self.code, self.client, message, self.fields)


def get_device(request: Request) -> Response:
    """The form for the user code, filled in when the link carried one (verification_uri_complete, RFC 8628 3.3.1)."""
    typed = request.query.get("user_code") or [""]
    code = normalised(typed[0])
    return code_page(request, shown(code) if code else "")


def post_device(request: Request) -> Response:
    """The posted form's step (STEPS): its code's request shown for a decision, the decision, or a step of the
    interaction before the approval (RFC 8628 3.3)."""
    fields, run = posted_step(request, STEPS, CARRIES)
    step = step_of(fields)
    if fields.get("action") != ACTIONS[step]:
        raise ApiError("invalid_request", STALE, internal=f"a {fields.get('action', '')[:16]!r} form of step {step!r}")
    within_limits(request.source_ip)
    code = normalised(fields.get("user_code", ""))
    record = DeviceCodeStore().pending(code) if code else None
    client = client_of(request, record)
    if record is None or code is None or client is None:
        log_outcome("unknown_code", None)
        return code_page(request, "", NO_SUCH_CODE)
    return run(Posted(request, fields, record, code, client))


def _code(form: Posted) -> Response:
    """The code's form: its request, for a decision."""
    return form.page()


def _decision(form: Posted) -> Response:
    """Deny (no sign-in needed); Approve with a passkey (its ceremony's page); Approve, as the browser's session
    for the client's tenant, else with the sign-in on the page."""
    decision = form.fields.get("decision")
    if decision == "deny":
        return denied(form.record)
    if decision == "passkey":
        return _resumed(form, passkey_step.page(form.request, form.hand_off()))
    if "upstream" in form.fields:
        return _resumed(form, upstream_start.chosen(form.request, form.hand_off(), form.fields))
    if decision != "approve":
        return form.page(MISSING_DECISION)
    session = current_session(form.request, form.client.tenant_id)
    if session is None:
        return _resumed(form, password_step.signed_in(form.request, form.hand_off(), form.fields))
    step = factor_step.step_up(form.request, form.hand_off(), session)
    return step if step is not None else approved(form.request, form.record, authentication_of(session))


def _passkey(form: Posted) -> Response:
    """The passkey ceremony's answer: the sign-in it proves (mfa), and the approval."""
    return _resumed(form, passkey_step.signed_in(form.request, form.hand_off(), form.fields))


def _factor(form: Posted) -> Response:
    """The second-factor step a tenant requiring mfa asks before the approval."""
    session = current_session(form.request, form.client.tenant_id)
    return _resumed(form, factor_step.posted(form.request, form.hand_off(), form.fields, session))


def _upstream(form: Posted) -> Response:
    """An identity provider's answer, brought back: the sign-in it proves (or the link page), then the approval."""
    return _resumed(form, upstream_answer.signed_in(form.request, form.hand_off(), form.fields))


def _link(form: Posted) -> Response:
    """The link page: the account proved and linked, then the approval."""
    return _resumed(form, upstream_answer.linked(form.request, form.hand_off(), form.fields))


def _change(form: Posted) -> Response:
    """A forced password change, then the approval."""
    return _resumed(form, password_change.changed(form.request, form.hand_off(), form.fields))


def _resumed(form: Posted, outcome: Authentication | Again | Response) -> Response:
    """The interaction's answer: its page, the decision page again with its message, or the approval."""
    if isinstance(outcome, Again):
        return form.page(outcome.message)
    if isinstance(outcome, Response):
        return outcome
    return approved(form.request, form.record, outcome)


STEPS: dict[str, Callable[[Posted], Response]] = {
    CODE: _code,
    DECISION: _decision,
    steps.PASSKEY: _passkey,
    steps.FACTOR: _factor,
    steps.CHANGE: _change,
    steps.UPSTREAM: _upstream,
    steps.LINK: _link,
}
# A second-factor step's form and the link page take a passkey's answer too (its ceremony posts back to the step).
CARRIES = {steps.FACTOR: ("credential",), steps.LINK: ("credential",)}
