"""The steps of the authorization endpoint's forms, by the name each form's sealed request carries
(sealed_form.Sealed.step; interaction.steps): `password` (the sign-in form: the decision, then the interaction's
password step, its passkey's ceremony, or an identity provider's sign-in), `passkey` (the ceremony answered),
`change` (a forced password change), `factor` (the second-factor step), `upstream` (an identity provider's answer,
brought back), `link` (the proof of the account an identity provider's person links to) and `consent` (a
signed-in person's decision). Each hands off to the interaction (hand_off) and resumes with its Authentication
(resume); none checks a password, a code, a passkey or an IdP's answer itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from authgate.clients.model import Client
from authgate.errors import ApiError
from authgate.http.request import Request
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
from authgate.interaction.messages import MISSING_DECISION, SESSION_ENDED
from authgate.interaction.sessions import authentication_of, current_session
from authgate.oauth.authorization import answers, resume
from authgate.oauth.authorization.factor_reads import StepReads, session_of
from authgate.oauth.authorization.hand_off import hand_off, posted
from authgate.oauth.authorization.outcome_log import log
from authgate.oauth.authorization.sealed_form import Sealed
from authgate.stores.linked_identities import LinkedIdentityStore
from authgate.tenants.model import Tenant


class Posted(NamedTuple):
    """A form of the authorization endpoint, checked: its request as sealed, the client and tenant as they stand."""

    request: Request
    client: Client
    tenant: Tenant
    fields: dict[str, str]
    sealed: Sealed
    # The second-factor step's one BatchGetItem (factor_reads), read before the client was checked.
    reads: StepReads | None = None

    def hand_off(self, **notes: bool | None) -> HandOff:
        """The hand-off of this form's request, its pages posting back with this form's state."""
        return hand_off(self.request, self.client, self.tenant, self.sealed.request,
                        posted(self.sealed, self.fields.get("csrf", "")), notes=notes)

    def again(self, message: str, *, signed_in_as: str = "") -> Response:
        """The form again with `message`, its state and CSRF token unchanged."""
        return answers.form(self.request, self.sealed.request, self.client, self.tenant, message,
                            self.fields.get("username", ""), self.fields, signed_in_as, self.sealed)


def _password(form: Posted) -> Response:
    """The sign-in form: Approve with a passkey (its ceremony's page); Sign in with an identity provider (on the way
    there: choosing it approves, as the passkey does); Deny (access_denied); Approve with the credentials (the
    interaction's password step), then the code, or the interaction's next page."""
    decision = form.fields.get("decision", "")
    handoff = form.hand_off(approved=True)
    if decision == "passkey":
        return _resumed(form, passkey_step.page(form.request, handoff))
    if "upstream" in form.fields:
        return _resumed(form, upstream_start.chosen(form.request, handoff, form.fields))
    _decided(form)
    return _resumed(form, password_step.signed_in(form.request, handoff, form.fields))


def _passkey(form: Posted) -> Response:
    """The passkey ceremony's answer: the sign-in it proves, then the code."""
    return _resumed(form, passkey_step.signed_in(form.request, form.hand_off(approved=True), form.fields))


def _upstream(form: Posted) -> Response:
    """An identity provider's answer, brought back: the sign-in it proves (or the link page), then the code."""
    link = (LinkedIdentityStore.found(form.reads.link),) if form.reads is not None and form.reads.link else None
    return _resumed(form, upstream_answer.signed_in(form.request, form.hand_off(approved=True), form.fields, link))


def _link(form: Posted) -> Response:
    """The link page: the account proved and linked, then the code; the page again otherwise."""
    return _resumed(form, upstream_answer.linked(form.request, form.hand_off(approved=True), form.fields))


def _change(form: Posted) -> Response:
    """A forced password change's form (its decision made already on the sign-in form)."""
    _decided(form)
    return _resumed(form, password_change.changed(form.request, form.hand_off(approved=True), form.fields))


def _factor(form: Posted) -> Response:
    """The second-factor step: its page again, the passkey's ceremony, or the raised session and what follows it
    (resume.after_second_factor); a ticket that no longer holds shows the sign-in form again."""
    reads = form.reads
    session = session_of(form.request, reads)
    outcome = factor_step.posted(form.request, form.hand_off(), form.fields, session,
                                 reads.user if reads is not None else None)
    if isinstance(outcome, Again):
        return answers.form(form.request, form.sealed.request._replace(sid=None), form.client, form.tenant,
                            outcome.message)
    if isinstance(outcome, Response):
        return outcome
    return resume.after_second_factor(form.request, form.client, form.tenant, form.sealed.request, outcome)


def _consent(form: Posted) -> Response:
    """The consent-only form of a signed-in person: the decision, then the code, if the session still holds (the
    one the form was shown for); otherwise the sign-in form again."""
    auth = form.sealed.request
    session = current_session(form.request, form.client.tenant_id)
    if session is None or session.sid != auth.sid:
        return answers.form(form.request, auth._replace(sid=None), form.client, form.tenant, SESSION_ENDED)
    if form.fields.get("decision") not in ("approve", "deny"):
        return form.again(MISSING_DECISION, signed_in_as=session.username)
    _decided(form)
    return resume.approved(form.request, form.client, auth, authentication_of(session))


def _decided(form: Posted) -> None:
    """Deny is access_denied (RFC 6749 4.1.2.1); the sign-in form's own MISSING_DECISION answer is its step's."""
    decision = form.fields.get("decision")
    if decision == "deny":
        log("denied", form.sealed.request)
        raise ApiError("access_denied", "The user denied the request.")
    if decision != "approve":
        raise _Undecided()


class _Undecided(Exception):
    """Neither Approve nor Deny: the form again, asking for a decision."""


def _resumed(form: Posted, outcome: Authentication | Again | Response) -> Response:
    """The interaction's answer: its page, the sign-in form again with its message, or the code."""
    if isinstance(outcome, Again):
        return form.again(outcome.message)
    if isinstance(outcome, Response):
        return outcome
    return resume.approved(form.request, form.client, form.sealed.request, outcome)


STEPS: dict[str, Callable[[Posted], Response]] = {
    steps.PASSWORD: _password,
    steps.PASSKEY: _passkey,
    steps.CHANGE: _change,
    steps.FACTOR: _factor,
    steps.UPSTREAM: _upstream,
    steps.LINK: _link,
    answers.CONSENT: _consent,
}
# A second-factor step's form and the link page take a passkey's answer too (its ceremony posts back to the step).
CARRIES = {steps.FACTOR: ("credential",), steps.LINK: ("credential",)}


def run(step: Callable[[Posted], Response], form: Posted) -> Response:
    """The form's step (its handler in STEPS, interaction.steps.handler); a form without a decision is shown again
    asking for one."""
    try:
        return step(form)
    except _Undecided:
        return form.again(MISSING_DECISION)
