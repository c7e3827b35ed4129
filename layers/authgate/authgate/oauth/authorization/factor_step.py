"""The factor steps at the authorization endpoint (docs/strong-authentication.md): the second-factor step after a
password (oauth.authorization.second_factor) and a passkey sign-in alone (oauth.authorization.passkey_sign_in)."""

from __future__ import annotations

from authgate.assurance import MFA
from authgate.clients.model import Client
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.issuer import base_url
from authgate.logs import get_logger
from authgate.oauth.authorization import (
    admission,
    answers,
    passkey_page,
    passkey_sign_in,
    sealed_form,
    second_factor,
    second_factor_page,
    session_cookie,
    single_sign_on,
)
from authgate.oauth.authorization.consent_page import redirect_origin
from authgate.oauth.authorization.request import AuthorizationRequest, single
from authgate.oauth.authorization.sign_in import open_session
from authgate.sessions.model import Session
from authgate.stores.user_items import passkeys_held
from authgate.tenants.model import Tenant

STEP_ENDED = "The second-factor step expired or was used already. Sign in again."


def step_page(request: Request, client: Client, auth: AuthorizationRequest, session: Session,
              step: second_factor.Kind, blob: str, csrf: str, *, approved: bool, message: str = "",
              secret: str | None = None, remembered: bool | None = None, passkeys: bool | None = None) -> Response:
    """The second-factor step's page for `session` (second_factor_page.page), offering passkeys where the issuer can be a
    WebAuthn relying party and the person holds one (`passkeys`: as their item counted it, None: unknown)."""
    return second_factor_page.page(kind=step, session=session, blob=blob, csrf=csrf, approved=approved, message=message,
                              client_name=client.name or client.client_id, secret=secret, remembered=remembered,
                              redirect_origin=redirect_origin(auth.redirect_uri), issuer=base_url(request),
                              passkeys=passkey_page.relying_party(request) is not None, held=passkeys)


def passkey(request: Request, client: Client, tenant: Tenant, fields: answers.Fields, auth: AuthorizationRequest) -> Response:
    """Approve with a passkey alone (passkey_sign_in): the ceremony's page, then the sign-in it proves (acr mfa)
    and the code, for the person an id_token_hint names (else login_required, as after a password); a refusal
    shows the sign-in form again."""
    raw = single(fields, "credential")
    if raw is None:
        shown = passkey_sign_in.page(request, tenant_id=client.tenant_id, blob=single(fields, "request_blob") or "",
                                     csrf=single(fields, "csrf") or "", client_name=client.name or client.client_id,
                                     redirect_origin=redirect_origin(auth.redirect_uri))
        return shown or answers.form(request, auth, client, tenant, passkey_sign_in.REFUSED, posted=fields)
    signed = passkey_sign_in.verified(request, client.tenant_id, raw)
    if signed is None:
        answers.log("passkey_refused", auth)
        return answers.form(request, auth, client, tenant, passkey_sign_in.REFUSED, posted=fields)
    result, tenant_id, amr = signed
    admission.hinted_person(auth, result.user_id)
    if not client.tenant_id:
        auth = admission.self_registered(request, client, auth, tenant_id)
    secret, session = open_session(tenant_id, result, acr=MFA, amr=amr)
    grant_id = single_sign_on.approved(auth, session)
    response = answers.code_redirect(request, client, auth, result.subject, single_sign_on.authentication_of(session),
                                     grant_id)
    response.multi_headers["Set-Cookie"] = [session_cookie.set_cookie(secret, base_url(request))]
    return response


def posted(request: Request, client: Client, tenant: Tenant, fields: answers.Fields,
           auth: AuthorizationRequest, reads: second_factor.StepReads) -> Response:
    """A posted second-factor step (second_factor): the step again after a wrong code; once right, the session
    raised (a new cookie) and then the recovery codes of an enrolment, the code (the decision was made with the
    password), or the consent-only form."""
    session = second_factor.session_of(request, reads)
    try:
        if session is None:
            raise second_factor.StepInvalid("no session")
        outcome = second_factor.submitted(request, fields, session, reads.user)
    except second_factor.StepInvalid as exc:
        answers.log("factor_step_invalid", auth)
        get_logger().info("second factor step refused", extra={"reason": str(exc)})
        return answers.form(request, auth._replace(sid=None), client, tenant, STEP_ENDED)
    if outcome.passkey:
        ceremony = passkey_sign_in.second_factor_page(
            request, session=session, blob=single(fields, "request_blob") or "", csrf=single(fields, "csrf") or "",
            ticket=single(fields, "factor_ticket") or "", client_name=client.name or client.client_id,
            redirect_origin=redirect_origin(auth.redirect_uri))
        if ceremony is not None:
            return ceremony
    if outcome.raised is None:
        answers.log("factor_invalid", auth)
        return step_page(request, client, auth, session, outcome.kind, single(fields, "request_blob") or "",
                         single(fields, "csrf") or "", approved=outcome.approved, message=outcome.message,
                         secret=outcome.secret, remembered=outcome.remembered,
                         passkeys=passkeys_held(reads.user.item) if reads.user is not None else None)
    secret, session = outcome.raised
    if not client.tenant_id:
        auth = admission.self_registered(request, client, auth, session.tenant_id)
    if outcome.recovery:
        blob, csrf, _binding = sealed_form.form_state(auth._replace(sid=session.sid), request)
        response = second_factor_page.recovery_codes_page(
            codes=outcome.recovery, blob=blob, csrf=csrf, approved=outcome.approved,
            client_name=client.name or client.client_id, redirect_origin=redirect_origin(auth.redirect_uri))
    elif outcome.approved or not single_sign_on.consent_needed(auth, _remembered(outcome, auth, session)):
        grant_id = single_sign_on.approved(auth, session, remembered=not outcome.approved)
        response = answers.code_redirect(request, client, auth, session.username,
                                         single_sign_on.authentication_of(session), grant_id)
    else:
        response = answers.form(request, auth._replace(sid=session.sid), client, tenant, signed_in_as=session.username)
    response.multi_headers["Set-Cookie"] = [*response.multi_headers.get("Set-Cookie", []),
                                            session_cookie.set_cookie(secret, base_url(request))]
    return response


def _remembered(outcome: second_factor.Outcome, auth: AuthorizationRequest, session: Session) -> bool:
    """Whether the person approved this request before: as the step's page read it (its sealed ticket, at most
    STEP_TTL old), else read now."""
    return outcome.remembered if outcome.remembered is not None else single_sign_on.remembered(auth, session)
