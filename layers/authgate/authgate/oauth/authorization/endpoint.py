"""The authorization endpoint, GET and POST /oauth/authorize (RFC 6749 4.1.1-4.1.2, RFC 9207, RFC 9700).

GET validates the request and shows the login + consent form. POST (the form) checks the
signed state and CSRF token, then the user's decision and password, and redirects with a code.
Each is a list of named steps in their security order, as node-oidc-provider composes its
authorization actions (lib/actions/authorization/*.js): what a step relies on was checked by
the steps before it.

Errors are raised as ApiError and rendered by http.shapes on the "authorize" surface. Until
the client and redirect URI are trusted (`_trust`), request.context.redirect is unset and the
error is an HTML page; from the moment it is set, every error (including an unexpected one,
which the App turns into internal_error -> server_error) is a redirect to that URI with error,
error_description, state and iss.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from authgate.clients.model import REGISTRATION_SOURCE, Client
from authgate.errors import ApiError
from authgate.failures import as_api_error
from authgate.http.context import AuthorizationRedirect
from authgate.http.request import Request
from authgate.http.response import NO_STORE, Response
from authgate.http.shapes.oauth import with_query
from authgate.issuer import base_url
from authgate.logs import get_logger
from authgate.oauth.authorization import (
    passkey_page,
    passkey_sign_in,
    password_change,
    sealed_form,
    second_factor,
    session_cookie,
    single_sign_on,
)
from authgate.oauth.authorization.consent_page import (
    MISSING_CREDENTIALS,
    MISSING_DECISION,
    WRONG_CREDENTIALS,
    WRONG_CREDENTIALS_OR_CODE,
    WRONG_ORGANISATION_CREDENTIALS_OR_CODE,
    WRONG_ORGANISATION_OR_CREDENTIALS,
    forgot_link,
    identity_notice,
    redirect_origin,
    render_consent,
)
from authgate.oauth.authorization.request import (
    AuthorizationRequest,
    client_id_of,
    client_tenant,
    recheck,
    resolve_target,
    single,
    tenant_read,
    validate,
)
from authgate.oauth.authorization.sign_in import account_of, open_session, sign_in
from authgate.oauth.clients import registered, tenant_policy
from authgate.oauth.clients.lookup import ClientLookup
from authgate.oauth.clients.profile import check_authorization, code_ttl, requires_pushed_request
from authgate.oauth.resource_indicator import resolve
from authgate.sessions.model import Session
from authgate.settings import get_settings
from authgate.single_use.authentication import Authentication
from authgate.single_use.errors import PushedRequestError
from authgate.stores.batch import BatchRead, Pending
from authgate.stores.codes import CodeStore
from authgate.stores.pushed_requests import PushedRequestStore
from authgate.stores.tenants import TenantStore
from authgate.stores.users import UserStore
from authgate.tenants.model import Tenant
from authgate.users.assurance import MFA, assurance_of
from authgate.users.model import LoginResult
from authgate.users.passwords import MIN_PASSWORD, password_problem

FORM_TYPE = "application/x-www-form-urlencoded"
STALE_FORM = "The sign-in form has expired or was altered. Start again from the application."
SESSION_ENDED = "You were signed out in the meantime. Sign in again to approve."
STEP_ENDED = "The second-factor step expired or was used already. Sign in again."
# OpenID Connect Core 3.1.2.6: why prompt=none could not be honoured.
PROMPT_NONE = {
    "login_required": "The user is not signed in, and prompt=none forbids asking them to.",
    "consent_required": "The user has not approved these scopes for this client, and prompt=none forbids asking.",
}

# OpenID Connect Core 3.1.2.1 (id_token_hint): the person who signed in is not the one the client expects.
HINT_MISMATCH = "The person who signed in is not the one the id_token_hint names."

Fields = dict[str, list[str]]


class _ChangeAgain(Exception):
    """The forced change's form is shown again with `message` (the new password was not acceptable)."""

    def __init__(self, ticket: str, message: str) -> None:
        super().__init__(message)
        self.ticket, self.message = ticket, message


class _ShowAgain(Exception):
    """The form is shown again with `message`: no decision, no credentials, or wrong ones."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def get_authorize(request: Request) -> Response:
    """Validate the authorization request and show the login + consent page (RFC 6749 4.1.1, RFC 9126 4).

    1. the client, read in any environment (a misplaced client gets its own page);
    2. the request's parameters: a pushed request's, taken once, or the query's when the client
       need not push (RFC 9126 4);
    3. the client of this environment and its registered redirect URI; from here errors redirect;
    4. the client's tenant, and its policy on a self-registered client (a page);
    5. every other parameter, then the client's profile (FAPI 2.0 5.3.2.2);
    6. a browser signed in already (single_sign_on): the code at once, or the consent alone;
       otherwise the form: the sealed request and its CSRF token, bound to this browser."""
    return _authorization_request(request, request.query)


def _authorization_request(request: Request, params: Mapping[str, Sequence[str]]) -> Response:
    """An authorization request, from the query (GET) or a form (POST, OpenID Connect Core 3.1.2.1)."""
    client = _client(request, client_id_of(params), any_environment=True)
    params = _request_parameters(params, client)
    target = resolve_target(params, client, stage=get_settings().stage)
    _trust(request, target.redirect_uri, target.state)
    # The client's tenant and the browser's session in one BatchGetItem (the session is used only after
    # every check of the request below).
    reads = BatchRead(operation="authorize.batch_get")
    tenant_pending = tenant_read(reads, target.client)
    session_pending = single_sign_on.session_read(reads, request, target.client)
    reads.run()
    tenant = _admitted_tenant(request, target.client, tenant_pending)
    auth = validate(params, target, tenant, base_url(request))
    check_authorization(target.client, auth.redirect_uri_sent, auth.code_challenge, auth.redirect_uri)
    session, remembered = single_sign_on.checked_session(session_pending, target.client, auth)
    if session is None or single_sign_on.sign_in_needed(auth, session):
        _page_allowed(auth, "login_required")
        return _form(request, auth, target.client, tenant, username=auth.login_hint or "")
    step = second_factor.missing(auth, tenant, session)
    if step is not None:
        if auth.prompt == "none":
            _log(f"{step}_required", auth)
            raise second_factor.refuse_prompt_none(step)
        blob, csrf, binding = sealed_form.form_state(auth, request.headers.get_all("cookie"),
                                                     base_url(request).startswith("https://"))
        response = _step_page(request, target.client, auth, session, step, blob, csrf, approved=False,
                              remembered=remembered)
        response.multi_headers["Set-Cookie"] = [binding] if binding else []
        return response
    if single_sign_on.consent_needed(auth, remembered):
        _page_allowed(auth, "consent_required")
        return _form(request, auth._replace(sid=session.sid), target.client, tenant, signed_in_as=session.username)
    # Signed in and approved before: the code at once, no page (OpenID Connect Core 3.1.2.5).
    grant_id = single_sign_on.approved(auth, session, remembered=True)
    return _code_redirect(request, target.client, auth, session.username,
                          single_sign_on.authentication_of(session), grant_id, status=302)


def post_authorize(request: Request) -> Response:
    """The submitted form: a code (RFC 6749 4.1.2) or an error redirect.

    1. the form's media type and fields;
    2. the sealed request and the CSRF token bound to this browser (RFC 6749 10.12): nothing the
       browser could edit is trusted, and a form that fails here is a page;
    3. the client and its redirect URI as they stand now; from here errors redirect;
    4. every field once;
    5. the client's tenant and its policy, and the rules that depend on the registration, again;
    6. the decision: deny is access_denied;
    7. the credentials, through every sign-in throttle (sign_in); after an operator's password reset, the
       form choosing a new one, and its submission (oauth.authorization.password_change);
    8. the person who signed in must be the one an id_token_hint names (OIDC Core 3.1.2.1), else login_required;
    9. a self-registered client's tenant: the signed-in user's, whose policy and rules decide;
    10. the code, bound to the request, and the 303 to the client."""
    fields = _posted_fields(request)
    if "request_blob" not in fields and ("client_id" in fields or "response_type" in fields):
        # OpenID Connect Core 3.1.2.1: the authorization endpoint MUST take the request by POST as well; a
        # request is told from the sign-in form by carrying client_id or response_type and no sealed request.
        return _authorization_request(request, fields)
    auth = _unsealed(request, fields)
    # A second-factor step's reads (client, tenant, session, user) in one BatchGetItem.
    reads = (second_factor.step_reads(request, fields, auth, _lookup(request))
             if single(fields, "factor_ticket") is not None else None)
    client = _still_registered(request, auth, reads)
    _trust(request, auth.redirect_uri, auth.state)
    _each_field_once(fields)
    tenant = _admitted_tenant(request, client, reads.tenant if reads and client.tenant_id == auth.tenant_id else None)
    recheck(auth, client, tenant, base_url(request))
    username = single(fields, "username") or ""
    if reads is not None:
        return _second_factor(request, client, tenant, fields, auth, reads)
    if single(fields, "credential") is not None or single(fields, "decision") == "passkey":
        return _passkey(request, client, tenant, fields, auth)
    if auth.sid is not None:
        return _approved_in_session(request, client, tenant, fields, auth)
    code = _code_typed(fields, auth, tenant)
    try:
        _decided(fields, auth)
        if single(fields, "change_ticket") is not None:
            code = ""
            signed_in, tenant_id = _password_changed(client, fields)
        else:
            signed_in, tenant_id = _signed_in(request, client, fields, auth, code)
            if signed_in.must_change_password:
                return _change_form(client, auth, fields, password_change.issue(tenant_id, signed_in.subject))
    except _ShowAgain as again:
        return _form(request, auth, client, tenant, again.message, username, fields)
    except _ChangeAgain as again:
        return _change_form(client, auth, fields, again.ticket, again.message)
    _hinted_person(auth, signed_in)
    if not client.tenant_id:
        auth = _self_registered(request, client, auth, tenant_id)
    if code:
        # Password and code in one POST: the session opens at mfa (RFC 8176 2: pwd, otp, mfa), no step, no rotation.
        assurance = assurance_of(frozenset({"pwd", "otp"}), 0)
        secret, session = open_session(auth.tenant_id, signed_in, acr=assurance.acr, amr=assurance.amr)
    else:
        secret, session = open_session(auth.tenant_id, signed_in)
    step = second_factor.missing(auth, tenant, session)
    if step is not None:
        response = _step_page(request, client, auth, session, step, single(fields, "request_blob") or "",
                              single(fields, "csrf") or "", approved=True)
    else:
        grant_id = single_sign_on.approved(auth, session)
        response = _code_redirect(request, client, auth, signed_in.subject,
                                  single_sign_on.authentication_of(session), grant_id)
    response.multi_headers["Set-Cookie"] = [session_cookie.set_cookie(secret, base_url(request))]
    return response


def _step_page(request: Request, client: Client, auth: AuthorizationRequest, session: Session,
               step: second_factor.Kind, blob: str, csrf: str, *, approved: bool, message: str = "",
               secret: str | None = None, remembered: bool | None = None) -> Response:
    return second_factor.page(kind=step, session=session, blob=blob, csrf=csrf, approved=approved, message=message,
                              client_name=client.name or client.client_id, secret=secret, remembered=remembered,
                              redirect_origin=redirect_origin(auth.redirect_uri), issuer=base_url(request),
                              passkeys=passkey_page.relying_party(request) is not None)


def _passkey(request: Request, client: Client, tenant: Tenant, fields: Fields, auth: AuthorizationRequest) -> Response:
    """Approve with a passkey alone (passkey_sign_in): the ceremony's page, then the sign-in it proves (acr mfa)
    and the code; a refusal shows the sign-in form again."""
    raw = single(fields, "credential")
    if raw is None:
        shown = passkey_sign_in.page(request, tenant_id=client.tenant_id, blob=single(fields, "request_blob") or "",
                                     csrf=single(fields, "csrf") or "", client_name=client.name or client.client_id,
                                     redirect_origin=redirect_origin(auth.redirect_uri))
        return shown or _form(request, auth, client, tenant, passkey_sign_in.REFUSED, posted=fields)
    signed = passkey_sign_in.verified(request, client.tenant_id, raw)
    if signed is None:
        _log("passkey_refused", auth)
        return _form(request, auth, client, tenant, passkey_sign_in.REFUSED, posted=fields)
    result, tenant_id, amr = signed
    if not client.tenant_id:
        auth = _self_registered(request, client, auth, tenant_id)
    secret, session = open_session(tenant_id, result, acr=MFA, amr=amr)
    grant_id = single_sign_on.approved(auth, session)
    response = _code_redirect(request, client, auth, result.subject, single_sign_on.authentication_of(session),
                              grant_id)
    response.multi_headers["Set-Cookie"] = [session_cookie.set_cookie(secret, base_url(request))]
    return response


def _second_factor(request: Request, client: Client, tenant: Tenant, fields: Fields,
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
        _log("factor_step_invalid", auth)
        get_logger().info("second factor step refused", extra={"reason": str(exc)})
        return _form(request, auth._replace(sid=None), client, tenant, STEP_ENDED)
    if outcome.passkey:
        ceremony = passkey_sign_in.second_factor_page(
            request, session=session, blob=single(fields, "request_blob") or "", csrf=single(fields, "csrf") or "",
            ticket=single(fields, "factor_ticket") or "", client_name=client.name or client.client_id,
            redirect_origin=redirect_origin(auth.redirect_uri))
        if ceremony is not None:
            return ceremony
    if outcome.raised is None:
        _log("factor_invalid", auth)
        return _step_page(request, client, auth, session, outcome.kind, single(fields, "request_blob") or "",
                          single(fields, "csrf") or "", approved=outcome.approved, message=outcome.message,
                          secret=outcome.secret, remembered=outcome.remembered)
    secret, session = outcome.raised
    if not client.tenant_id:
        auth = _self_registered(request, client, auth, session.tenant_id)
    if outcome.recovery:
        blob, csrf, _binding = sealed_form.form_state(auth._replace(sid=session.sid),
                                                      request.headers.get_all("cookie"),
                                                      base_url(request).startswith("https://"))
        response = second_factor.recovery_codes_page(
            codes=outcome.recovery, blob=blob, csrf=csrf, approved=outcome.approved,
            client_name=client.name or client.client_id, redirect_origin=redirect_origin(auth.redirect_uri))
    elif outcome.approved or not single_sign_on.consent_needed(auth, _remembered(outcome, auth, session)):
        grant_id = single_sign_on.approved(auth, session, remembered=not outcome.approved)
        response = _code_redirect(request, client, auth, session.username,
                                  single_sign_on.authentication_of(session), grant_id)
    else:
        response = _form(request, auth._replace(sid=session.sid), client, tenant, signed_in_as=session.username)
    response.multi_headers["Set-Cookie"] = [*response.multi_headers.get("Set-Cookie", []),
                                            session_cookie.set_cookie(secret, base_url(request))]
    return response


def _remembered(outcome: second_factor.Outcome, auth: AuthorizationRequest, session: Session) -> bool:
    """Whether the person approved this request before: as the step's page read it (its sealed ticket, at most
    STEP_TTL old), else read now."""
    return outcome.remembered if outcome.remembered is not None else single_sign_on.remembered(auth, session)


def _approved_in_session(request: Request, client: Client, tenant: Tenant, fields: Fields,
                         auth: AuthorizationRequest) -> Response:
    """The consent-only form of a signed-in person: the decision, then the code, if the session still holds
    (the one the form was shown for); otherwise the password form again."""
    session = single_sign_on.current_session(request, client)
    if session is None or session.sid != auth.sid:
        return _form(request, auth._replace(sid=None), client, tenant, SESSION_ENDED)
    try:
        _decided(fields, auth)
    except _ShowAgain as again:
        return _form(request, auth, client, tenant, again.message, posted=fields, signed_in_as=session.username)
    grant_id = single_sign_on.approved(auth, session)
    return _code_redirect(request, client, auth, session.username, single_sign_on.authentication_of(session),
                          grant_id)


# -- the steps of GET ---------------------------------------------------------------------------


def _client(request: Request, client_id: str, any_environment: bool = False) -> Client | None:
    """The client, whatever its source (oauth.clients.lookup). A metadata document is fetched for this
    request's address; its refusals are shown on the page, never redirected (the redirect URI is
    the document's: draft-ietf-oauth-client-id-metadata-document-02 5.1)."""
    return _lookup(request).find(client_id, any_environment=any_environment)


def _lookup(request: Request) -> ClientLookup:
    """The one way this endpoint finds a client: a metadata document is fetched for this request's address."""
    return ClientLookup(request.source_ip, fetch_documents=True)


def _request_parameters(params: Mapping[str, Sequence[str]], client: Client | None) -> Mapping[str, Sequence[str]]:
    """The pushed request's parameters when the query names one, taken once (RFC 9126 4).

    Only those are used: like a request object's (RFC 9101 6.3, which RFC 9126 4 builds on), they
    are the whole request, and any other parameter in the query is ignored; the pushed client_id
    must be the one in the query, which consume() checks as it takes the request. A client that
    must push and did not is refused on the page: nothing in an unpushed request is trusted for
    it, not even its redirect_uri (RFC 9126 4, FAPI 2.0 5.3.2.2 item 2)."""
    request_uri = single(params, "request_uri")
    if client is None or client.environment != get_settings().stage:
        return params  # resolve_target says which
    if request_uri is not None:
        try:
            return PushedRequestStore().consume(request_uri, client.client_id).params
        except PushedRequestError as exc:
            raise as_api_error(exc) from exc
    if requires_pushed_request(client):
        raise ApiError("invalid_request", "This client must push its authorization requests (POST /oauth/par) "
                                          "and send only client_id and request_uri here (RFC 9126).")
    return params


def _page_allowed(auth: AuthorizationRequest, why: Literal["login_required", "consent_required"]) -> None:
    """prompt=none: the client asked for no page at all, and this person must see one (OpenID Connect Core
    3.1.2.1, 3.1.2.6): login_required (not signed in, or not recently enough) or consent_required, redirected."""
    if auth.prompt == "none":
        _log(why, auth)
        raise ApiError(why, PROMPT_NONE[why])


# -- the steps of POST --------------------------------------------------------------------------


def _posted_fields(request: Request) -> Fields:
    """The form's fields, each with every value it was sent with."""
    if request.content_type != FORM_TYPE:
        raise ApiError("invalid_request", "The sign-in form must be posted as application/x-www-form-urlencoded.")
    fields: Fields = {}
    for name, value in request.form():
        fields.setdefault(name, []).append(value)
    return fields


def _unsealed(request: Request, fields: Fields) -> AuthorizationRequest:
    """The request the form was shown for, if its seal holds and its CSRF token is this browser's."""
    try:
        auth, _nonce = sealed_form.unseal(single(fields, "request_blob"), single(fields, "csrf"),
                                          sealed_form.binding_from(request.headers.get_all("cookie")))
    except sealed_form.FormStateInvalid as exc:
        raise ApiError("invalid_request", STALE_FORM, internal=str(exc)) from None
    return auth


def _still_registered(request: Request, auth: AuthorizationRequest,
                      reads: second_factor.StepReads | None = None) -> Client:
    """The client as registered now (as `reads` read it, when they did): the registration may have changed since
    the form was shown, so its redirect URI is trusted only if it still holds."""
    if reads is not None:
        client = _lookup(request).found(auth.client_id, reads.client)
    else:
        client = _client(request, auth.client_id)
    if client is None:
        raise ApiError("unknown_client", "The client is no longer registered.")
    if auth.redirect_uri not in client.redirect_uris:
        raise ApiError("redirect_uri_mismatch", "The redirect_uri is no longer registered for this client.")
    return client


def _each_field_once(fields: Fields) -> None:
    for name, values in fields.items():
        if len(values) > 1:
            raise ApiError("invalid_request", f"The {name} field is repeated.")


def _decided(fields: Fields, auth: AuthorizationRequest) -> None:
    """The person approved; deny is access_denied, no decision shows the form again."""
    decision = single(fields, "decision")
    if decision == "deny":
        _log("denied", auth)
        raise ApiError("access_denied", "The user denied the request.")
    if decision != "approve":
        raise _ShowAgain(MISSING_DECISION)


def _code_typed(fields: Fields, auth: AuthorizationRequest, tenant: Tenant) -> str:
    """The one-time or recovery code typed beside the password, where the form offered the field (the request
    needs mfa: second_factor.required); empty otherwise, and then the step follows the password as before."""
    code = (single(fields, "code") or "").strip()[:second_factor.MAX_CODE]
    return code if code and second_factor.required(auth, tenant)[0] == MFA else ""


def _signed_in(request: Request, client: Client, fields: Fields,
               auth: AuthorizationRequest, code: str = "") -> tuple[LoginResult, str]:
    """(the sign-in, tenant id) of the person whose credentials these are (RFC 6749 10.10: sign_in's throttles),
    with `code` checked in the same attempt when one was typed.

    A self-registered client has no tenant yet (Tenant("")): the person names theirs on the form, or
    their email's login domain or the deployment's default tenant does (sign_in.account_of), and until
    the password is checked nothing depends on which tenant that is -- whether it exists, forbids the
    scopes or refuses the client -- so the answers cannot tell tenants apart."""
    username, password = single(fields, "username") or "", single(fields, "password") or ""
    typed = "" if client.tenant_id else (single(fields, "tenant") or "").strip()[:100]
    if not username or not password:
        raise _ShowAgain(MISSING_CREDENTIALS)
    tenant_id, username = account_of(client.tenant_id, typed, username)
    result = sign_in(tenant_id, username, password, request.source_ip, code)
    if not result.ok:
        _log(f"login_{result.reason}", auth)
        # One message whichever was wrong: the organisation, the account, the password or the code (docs/users.md).
        if code:
            raise _ShowAgain(WRONG_CREDENTIALS_OR_CODE if client.tenant_id else WRONG_ORGANISATION_CREDENTIALS_OR_CODE)
        raise _ShowAgain(WRONG_CREDENTIALS if client.tenant_id else WRONG_ORGANISATION_OR_CREDENTIALS)
    return result, tenant_id


def _password_changed(client: Client, fields: Fields) -> tuple[LoginResult, str]:
    """(the sign-in, tenant id) once the new password of a forced change is set (docs/users.md): the ticket holds,
    the password is acceptable and typed twice alike, and the change is still due."""
    raw = single(fields, "change_ticket") or ""
    try:
        ticket = password_change.redeem(raw)
    except password_change.TicketInvalid as exc:
        raise ApiError("invalid_request", STALE_FORM, internal=str(exc)) from None
    if client.tenant_id and ticket.tenant_id != client.tenant_id:
        raise ApiError("invalid_request", STALE_FORM, internal="change ticket of another tenant")
    new, confirm = single(fields, "new_password") or "", single(fields, "confirm") or ""
    problem = password_problem(new, ticket.username) or ("The two passwords differ." if new != confirm else "")
    if problem:
        raise _ChangeAgain(raw, problem)
    store = UserStore()
    user = store.get(ticket.tenant_id, ticket.username)
    if user is None or user.disabled or not user.must_change_password:
        raise ApiError("invalid_request", STALE_FORM, internal="no password change due")
    changed = store.change_password(ticket.tenant_id, ticket.username, new)
    return LoginResult(True, "ok", subject=ticket.username, user_id=user.user_id,
                       generation=changed.session_generation), ticket.tenant_id


def _hinted_person(auth: AuthorizationRequest, signed_in: LoginResult) -> None:
    """OpenID Connect Core 3.1.2.1: "If the End-User identified by the ID Token is not the one logged in or
    is not logged in by the request, ... it SHOULD return an error, such as login_required". No code, and no
    session for the other person (node-oidc-provider likewise never completes a request whose
    id_token_hint names someone else than the account signed in). login_hint stays a hint (3.1.2.1): it
    fills the username field and decides nothing."""
    if auth.hinted_sub is not None and signed_in.user_id != auth.hinted_sub:
        _log("login_required", auth)
        raise ApiError("login_required", HINT_MISMATCH)


def _change_form(client: Client, auth: AuthorizationRequest, fields: Fields, ticket: str,
                 message: str = "") -> Response:
    """The forced change's form: the posted sealed request and CSRF token, unchanged, and the ticket."""
    return password_change.render(client_name=client.name or client.client_id,
                                  blob=single(fields, "request_blob") or "", csrf=single(fields, "csrf") or "",
                                  ticket=ticket, redirect_origin=redirect_origin(auth.redirect_uri),
                                  minimum=MIN_PASSWORD, message=message)


def _self_registered(request: Request, client: Client, auth: AuthorizationRequest,
                     tenant_id: str) -> AuthorizationRequest:
    """After a correct password, the signed-in user's tenant decides (docs/agents.md): its policy on the
    client (a page), then its rules on the request (forbidden scopes, the resource's tenants: redirected,
    as for any client); a registered client (RFC 7591) then becomes the tenant's, within its cap."""
    tenant = TenantStore().get(tenant_id) or Tenant(tenant_id=tenant_id)
    _admitted(request, client, tenant)
    recheck(auth, client, tenant, base_url(request))
    if client.source == REGISTRATION_SOURCE:
        trusted, request.context.redirect = request.context.redirect, None  # its refusals are pages too
        registered.assign(client, tenant)
        request.context.redirect = trusted
    return auth._replace(tenant_id=tenant.tenant_id)


def _code_redirect(request: Request, client: Client, auth: AuthorizationRequest, username: str,
                   authentication: Authentication, grant_id: str, status: int = 303) -> Response:
    """The authorization response: a code bound to everything the request said and to the sign-in the ID
    token will state (RFC 6749 4.1.2, RFC 9207, OpenID Connect Core 3.1.2.5)."""
    code = CodeStore().create(
        client_id=auth.client_id, tenant_id=auth.tenant_id,
        redirect_uri=auth.redirect_uri, redirect_uri_sent=auth.redirect_uri_sent,
        code_challenge=auth.code_challenge, code_challenge_method=auth.code_challenge_method,
        scope=" ".join(auth.scopes), subject=username, ttl=code_ttl(client),
        dpop_jkt=auth.dpop_jkt, resource=auth.resource, nonce=auth.nonce, authentication=authentication,
        grant_id=grant_id, authorization_details=auth.authorization_details,
    )
    _log("approved", auth)
    params = [("code", code)] + ([("state", auth.state)] if auth.state is not None else [])
    params.append(("iss", base_url(request)))
    # From the form, 303, not 302 or 307: the browser follows with a GET and never re-posts the
    # password (RFC 9700 4.12; FAPI 2.0 5.3.2.2 item 11). From a GET (single sign-on), 302.
    return Response(status, "", {"Location": with_query(auth.redirect_uri, params), **NO_STORE,
                              "Referrer-Policy": "no-referrer"})


# -- what both use ------------------------------------------------------------------------------


def _trust(request: Request, redirect_uri: str, state: str | None) -> None:
    # From here on http.shapes.oauth.authorize_error redirects instead of showing the page.
    request.context.redirect = AuthorizationRedirect(redirect_uri, state)


def _admitted_tenant(request: Request, client: Client, prefetched: Pending | None = None) -> Tenant:
    """The tenant the client's requests are checked against (Tenant("") before a self-registered client's
    user signs in), once its policy accepts the client (`prefetched`: read already in a batch)."""
    tenant = client_tenant(client, prefetched)
    _admitted(request, client, tenant)
    return tenant


def _admitted(request: Request, client: Client, tenant: Tenant) -> None:
    """A self-registered client the tenant holds (or, after sign-in, the user's tenant) must still be accepted
    by its policy (oauth.clients.tenant_policy); a refusal is a page: nothing is sent to a redirect URI the tenant
    does not accept. Before sign-in (Tenant("")) there is nothing to ask yet."""
    if not tenant.tenant_id:
        return
    refused = tenant_policy.refusal(client, tenant)
    if refused is not None:
        request.context.redirect = None
        raise refused


def _form(request: Request, auth: AuthorizationRequest, client: Client, tenant: Tenant, message: str = "",
          username: str = "", posted: Mapping[str, Sequence[str]] | None = None, signed_in_as: str = "") -> Response:
    """The consent page; a re-shown form keeps the posted state and CSRF token unchanged."""
    binding = sealed_form.binding_from(request.headers.get_all("cookie"))
    if posted is not None:
        blob, csrf = (posted.get("request_blob") or [""])[0], (posted.get("csrf") or [""])[0]
    else:
        blob, nonce = sealed_form.seal(auth)
        if binding is None:
            binding = sealed_form.new_binding()
        csrf = sealed_form.csrf_token(binding, nonce)
    self_registered = not client.tenant_id
    # The API the token is for, as its registration describes it (its tenants were checked already).
    resource = resolve(auth.resource, base_url(request), None)
    response = render_consent(request=auth, resource=resource, client_name=client.name or client.client_id,
                              # Never the name of a tenant someone typed: the page must not confirm it exists.
                              tenant_name="your organisation" if self_registered else tenant.name or tenant.tenant_id,
                              blob=blob, csrf=csrf,
                              message=message, username=username, signed_in_as=signed_in_as,
                              identity=identity_notice(client, auth.redirect_uri) if client.source else "",
                              ask_tenant=self_registered,
                              tenant=single(posted, "tenant") or "" if self_registered and posted else "",
                              forgot=forgot_link(client.tenant_id),
                              passkey=passkey_page.relying_party(request) is not None,
                              code=not signed_in_as and second_factor.required(auth, tenant)[0] == MFA)
    if binding is not None and posted is None:
        secure = base_url(request).startswith("https://")
        response.multi_headers["Set-Cookie"] = [sealed_form.binding_cookie(binding, secure)]
    return response


def _log(outcome: str, auth: AuthorizationRequest) -> None:
    # Ids and outcomes only: never the username, password, code or state.
    get_logger().info("authorize", extra={"outcome": outcome, "client_id": auth.client_id,
                                          "tenant": auth.tenant_id, "scope": " ".join(auth.scopes)})
