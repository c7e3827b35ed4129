"""The `factor` step (docs/strong-authentication.md): a session below what the hand-off asks gets the second-factor
page; its POST (a code, a recovery code, one of the person's passkeys, or an enrolment's first code) raises the
session and resumes the flow.

What the step asks and how a code is judged is interaction.second_factor (its ticket, the second factor's own
throttle); the page is interaction.second_factor_page. "Use a passkey instead" shows the ceremony of one of the
person's own passkeys (WebAuthn Level 3 7.2: allowCredentials, user verification required,
interaction.passkey_sign_in), which posts back to the same step with the same ticket.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from authgate.audit import person
from authgate.http.response import Response
from authgate.interaction import (
    passkey_page,
    passkey_sign_in,
    second_factor,
    second_factor_page,
    session_cookie,
    steps,
    upstream_start,
)
from authgate.interaction.handoff import Again, Authentication
from authgate.interaction.sessions import authentication_of
from authgate.issuer import base_url
from authgate.logs import get_logger

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.interaction.handoff import HandOff
    from authgate.sessions.model import Session
    from authgate.stores.batch import Pending


def step_up(request: Request, handoff: HandOff, session: Session, totp: bool | None = None,
            passkeys: bool | None = None) -> Response | None:
    """The second-factor page for a session the flow found already (single sign-on) when it is below what the
    hand-off asks, or None when it is enough; for prompt=none, its error instead (OIDC Core 3.1.2.6).
    `totp`, `passkeys`: what the flow's read of the user saw (interaction.second_factor.missing). A session an
    identity provider opened whose record steps up there goes back to it instead (interaction.upstream_start)."""
    upstream = upstream_start.step_up(request, handoff, session) if session.upstream is not None else None
    if upstream is not None:
        return upstream
    kind = second_factor.missing(handoff, session, totp, passkeys,
                                 usable=lambda: passkey_page.relying_party(request) is not None)
    if kind is None:
        return None
    if handoff.prompt == "none":
        handoff.back.log(f"{kind}_required")
        raise second_factor.refuse_prompt_none(kind)
    return second_factor_page.page(request, handoff, kind=kind, session=session,
                                   passkeys=passkey_page.relying_party(request) is not None, held=passkeys)


def posted(request: Request, handoff: HandOff, fields: Mapping[str, str], session: Session | None,
           user: Pending | None = None) -> Authentication | Again | Response:
    """A posted second-factor step: the page again after a wrong code (or the passkey's ceremony, when asked for);
    once right, the session raised (its new cookie) and the flow resumed; Again with the flow's words when the
    step's ticket no longer holds (expired, used, of another session). `session`: the browser's session as the
    flow read it; `user`: the user's item, when the flow read it in the same batch (one TransactWriteItems then)."""
    back = handoff.back
    try:
        if session is None:
            raise second_factor.StepInvalid("no session")
        outcome = second_factor.submitted(request, fields, session, user)
    except second_factor.StepInvalid as exc:
        back.log("factor_step_invalid")
        get_logger().info("second factor step refused", extra={"reason": str(exc)})
        return Again(handoff.words.step_ended)
    if outcome.passkey:
        ceremony = _ceremony(request, handoff, session, fields.get("factor_ticket", ""))
        if ceremony is not None:
            return ceremony
    if outcome.raised is None:
        back.log("factor_invalid")
        person.refused(session.tenant_id, session.username, "second_factor_failed", session.user_id,
                       method="second_factor", client_id=handoff.client_id)
        resumed = handoff._replace(back=back._replace(notes=outcome.notes))
        return second_factor_page.page(request, resumed, kind=outcome.kind, session=session,
                                       passkeys=passkey_page.relying_party(request) is not None,
                                       message=outcome.message, secret=outcome.secret,
                                       held=_passkeys_held(user))
    secret, raised = outcome.raised
    if handoff.admit is not None:
        handoff.admit(raised.tenant_id)
    if outcome.recovery:
        person.acted("factor.enrolled", raised.tenant_id, raised.user_id, raised.username, factor="totp")
    person.signed_in(raised.tenant_id, raised.user_id, raised.username, raised.acr, raised.amr, handoff.client_id,
                     method=person.method_of(set(raised.amr) - set(session.amr)))
    return authentication_of(raised, session_cookie.set_cookie(secret, base_url(request)))._replace(
        recovery=outcome.recovery, notes=outcome.notes)


def _passkeys_held(user: Pending | None) -> bool | None:
    """Whether the user holds a passkey, as the flow's read of their item counted it (None: unknown)."""
    from authgate.stores.user_items import passkeys_held

    return passkeys_held(user.item) if user is not None else None


def _ceremony(request: Request, handoff: HandOff, session: Session, ticket: str) -> Response | None:
    """The ceremony's page for a second factor (interaction.passkey_sign_in.own_options: the person's own passkeys,
    the challenge bound to this browser and the person), posting back to the step with the same ticket and state;
    None when this issuer cannot use passkeys."""
    options = passkey_sign_in.own_options(request, session.tenant_id, session.username)
    if options is None:
        return None
    back = handoff.back
    return passkey_page.render(
        title="Second factor", options=options, ceremony="get", action=back.action,
        fields=steps.hidden(back.state(steps.FACTOR), [("factor_ticket", ticket)]),
        intro=f"<p>{back.voice.goal}, confirm it is you with one of your passkeys: your browser or device will ask you "
              "to unlock it.</p>",
        button="Use a passkey", form_action=back.leads_to)
