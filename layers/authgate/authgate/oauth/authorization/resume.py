"""What the authorization endpoint does once the interaction gives it an Authentication (interaction.handoff): the
code for the person who approved (RFC 6749 4.1.2, OpenID Connect Core 3.1.2.5), the consent-only form of a person
who has not approved this request's scopes yet, or a new enrolment's recovery codes first; the session's new cookie
with each."""

from __future__ import annotations

from authgate.clients.model import Client
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction import second_factor_page, steps
from authgate.interaction.handoff import Authentication
from authgate.oauth.authorization import answers, sealed_form, single_sign_on
from authgate.oauth.authorization.consent_page import redirect_origin
from authgate.oauth.authorization.hand_off import resumed_request
from authgate.oauth.authorization.request import AuthorizationRequest
from authgate.tenants.model import Tenant


def approved(request: Request, client: Client, auth: AuthorizationRequest, signed: Authentication, *,
             remembered: bool = False, status: int = 303) -> Response:
    """The person approved `auth` (remember its scopes unless `remembered` already): its code, and the session's
    new cookie when the sign-in set one."""
    auth = resumed_request(auth, client, signed.tenant_id)
    assert signed.session is not None  # the authorization endpoint's hand-off opens a session
    grant_id = single_sign_on.approved(auth, signed.session, remembered=remembered)
    response = answers.code_redirect(request, client, auth, signed.username, signed.recorded, grant_id, status=status)
    return with_cookie(response, signed.cookie)


def after_second_factor(request: Request, client: Client, tenant: Tenant, auth: AuthorizationRequest,
                        signed: Authentication) -> Response:
    """After the second-factor step raised the session: the recovery codes of an enrolment made in it (their form
    then goes on as the consent-only form, the decision made already when it was), the code when the person
    decided on the sign-in form or had approved these scopes before, else the consent-only form."""
    session = signed.session
    assert session is not None
    auth = resumed_request(auth, client, signed.tenant_id)
    decided = bool(signed.notes.get("approved"))
    if signed.recovery:
        sealed, csrf, _binding = sealed_form.form_state(auth._replace(sid=session.sid), answers.CONSENT, request)
        fields = [("request_blob", sealed.again(answers.CONSENT)), ("csrf", csrf),
                  *([("decision", "approve")] if decided else [])]
        response = second_factor_page.recovery_codes_page(
            codes=signed.recovery, hidden=steps.hidden(fields), asker=client.name or client.client_id,
            action="authorize", leads_to=redirect_origin(auth.redirect_uri))
        return with_cookie(response, signed.cookie)
    if decided or not single_sign_on.consent_needed(auth, _remembered(auth, signed)):
        return approved(request, client, auth, signed, remembered=not decided)
    return with_cookie(answers.form(request, auth._replace(sid=session.sid), client, tenant,
                                    signed_in_as=session.username), signed.cookie)


def _remembered(auth: AuthorizationRequest, signed: Authentication) -> bool:
    """Whether the person approved this request before: as the step's page read it (its notes, sealed in the ticket),
    else read now."""
    remembered = signed.notes.get("remembered")
    if isinstance(remembered, bool):
        return remembered
    assert signed.session is not None
    return single_sign_on.remembered(auth, signed.session)


def with_cookie(response: Response, cookie: str | None) -> Response:
    """`response` with the session's new Set-Cookie after any it has."""
    if cookie:
        response.multi_headers["Set-Cookie"] = [*response.multi_headers.get("Set-Cookie", []), cookie]
    return response
