"""The authorization endpoint, GET and POST /oauth/authorize (RFC 6749 4.1.1-4.1.2, RFC 9207, RFC 9700).

GET validates the request and shows the login + consent form. POST (the form) checks the
signed state and CSRF token, then the user's decision and password, and redirects with a code.
Each is a list of named steps in their security order, as node-oidc-provider composes its
authorization actions (lib/actions/authorization/*.js): what a step relies on was checked by
the steps before it. The handlers stay thin; the steps live in modules named after them:
`admission` (whether the client's request is served), `password_step` (the decision, the
credentials, the forced password change), `factor_step` (the second-factor step and a passkey
sign-in) and `answers` (the page, the code's redirect, the outcome log).

Errors are raised as ApiError and rendered by http.shapes on the "authorize" surface. Until
the client and redirect URI are trusted (`admission.trust`), request.context.redirect is unset
and the error is an HTML page; from the moment it is set, every error (including an unexpected one,
which the App turns into internal_error -> server_error) is a redirect to that URI with error,
error_description, state and iss. A self-registered client's URI is its registrant's word alone
(RFC 9700 4.11.2): its errors are a page offering that redirect as a link, until this browser's
person is found to have approved the client before (`admission.vouched`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from authgate.clients.model import Client
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction import password_change, second_factor, session_cookie
from authgate.interaction.binding import binding_from
from authgate.interaction.sealed_state import FormStateInvalid
from authgate.issuer import base_url
from authgate.oauth.authorization import (
    admission,
    answers,
    factor_step,
    password_step,
    sealed_form,
    single_sign_on,
)
from authgate.oauth.authorization.password_step import STALE_FORM
from authgate.oauth.authorization.request import (
    AuthorizationRequest,
    client_id_of,
    recheck,
    resolve_target,
    single,
    tenant_read,
    validate,
)
from authgate.oauth.clients.lookup import ClientLookup
from authgate.oauth.clients.profile import check_authorization
from authgate.settings import get_settings
from authgate.stores.batch import BatchRead
from authgate.tenants.model import Tenant

FORM_TYPE = "application/x-www-form-urlencoded"
SESSION_ENDED = "You were signed out in the meantime. Sign in again to approve."


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
    params = admission.request_parameters(params, client)
    target = resolve_target(params, client, stage=get_settings().stage)
    admission.trust(request, target.client, target.redirect_uri, target.state)
    # The client's tenant and the browser's session in one BatchGetItem (the session is used only after
    # every check of the request below).
    reads = BatchRead(operation="authorize.batch_get")
    tenant_pending = tenant_read(reads, target.client)
    session_pending = single_sign_on.session_read(reads, request, target.client)
    reads.run()
    tenant = admission.admitted_tenant(request, target.client, tenant_pending)
    auth = validate(params, target, tenant, base_url(request))
    check_authorization(target.client, auth.redirect_uri_sent, auth.code_challenge, auth.redirect_uri)
    session, remembered, totp, passkeys = single_sign_on.checked_session(session_pending, target.client, auth)
    if remembered:
        admission.vouched(request)
    if session is None or single_sign_on.sign_in_needed(auth, session):
        admission.page_allowed(auth, "login_required")
        return answers.form(request, auth, target.client, tenant, username=auth.login_hint or "")
    step = second_factor.missing(auth, tenant, session, totp, passkeys)
    if step is not None:
        if auth.prompt == "none":
            answers.log(f"{step}_required", auth)
            raise second_factor.refuse_prompt_none(step)
        blob, csrf, binding = sealed_form.form_state(auth, request)
        response = factor_step.step_page(request, target.client, auth, session, step, blob, csrf, approved=False,
                                         remembered=remembered, passkeys=passkeys)
        response.multi_headers["Set-Cookie"] = [binding] if binding else []
        return response
    if single_sign_on.consent_needed(auth, remembered):
        admission.page_allowed(auth, "consent_required")
        return answers.form(request, auth._replace(sid=session.sid), target.client, tenant, signed_in_as=session.username)
    # Signed in and approved before: the code at once, no page (OpenID Connect Core 3.1.2.5).
    grant_id = single_sign_on.approved(auth, session, remembered=True)
    return answers.code_redirect(request, target.client, auth, session.username,
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
       form choosing a new one, and its submission (interaction.password_change);
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
    reads = (factor_step.step_reads(request, fields, auth, _lookup(request))
             if single(fields, "factor_ticket") is not None else None)
    client = _still_registered(request, auth, reads)
    admission.trust(request, client, auth.redirect_uri, auth.state)
    _each_field_once(fields)
    tenant = admission.admitted_tenant(request, client, reads.tenant if reads and client.tenant_id == auth.tenant_id else None)
    recheck(auth, client, tenant, base_url(request))
    username = single(fields, "username") or ""
    if reads is not None:
        return factor_step.posted(request, client, tenant, fields, auth, reads)
    if single(fields, "credential") is not None or single(fields, "decision") == "passkey":
        return factor_step.passkey(request, client, tenant, fields, auth)
    if auth.sid is not None:
        return _approved_in_session(request, client, tenant, fields, auth)
    code = password_step.code_typed(fields, auth, tenant)
    try:
        password_step.decided(fields, auth)
        if single(fields, "change_ticket") is not None:
            code = ""
            signed_in, tenant_id = password_step.password_changed(client, fields)
        else:
            signed_in, tenant_id = password_step.signed_in(request, client, fields, auth, code)
            if signed_in.must_change_password:
                return password_step.change_form(client, auth, fields, password_change.issue(tenant_id, signed_in.subject))
    except password_step.ShowAgain as again:
        return answers.form(request, auth, client, tenant, again.message, username, fields)
    except password_step.ChangeAgain as again:
        return password_step.change_form(client, auth, fields, again.ticket, again.message)
    admission.hinted_person(auth, signed_in.user_id)
    if not client.tenant_id:
        auth = admission.self_registered(request, client, auth, tenant_id)
    secret, session = password_step.opened(auth.tenant_id, signed_in, code)
    step = second_factor.missing(auth, tenant, session, signed_in.totp, signed_in.passkeys)
    if step is not None:
        response = factor_step.step_page(request, client, auth, session, step, single(fields, "request_blob") or "",
                                         single(fields, "csrf") or "", approved=True, passkeys=signed_in.passkeys)
    else:
        grant_id = single_sign_on.approved(auth, session)
        response = answers.code_redirect(request, client, auth, signed_in.subject,
                                         single_sign_on.authentication_of(session), grant_id)
    response.multi_headers["Set-Cookie"] = [session_cookie.set_cookie(secret, base_url(request))]
    return response


def _approved_in_session(request: Request, client: Client, tenant: Tenant, fields: answers.Fields,
                         auth: AuthorizationRequest) -> Response:
    """The consent-only form of a signed-in person: the decision, then the code, if the session still holds
    (the one the form was shown for); otherwise the password form again."""
    session = single_sign_on.current_session(request, client)
    if session is None or session.sid != auth.sid:
        return answers.form(request, auth._replace(sid=None), client, tenant, SESSION_ENDED)
    try:
        password_step.decided(fields, auth)
    except password_step.ShowAgain as again:
        return answers.form(request, auth, client, tenant, again.message, posted=fields, signed_in_as=session.username)
    grant_id = single_sign_on.approved(auth, session)
    return answers.code_redirect(request, client, auth, session.username, single_sign_on.authentication_of(session),
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


# -- the steps of POST --------------------------------------------------------------------------


def _posted_fields(request: Request) -> answers.Fields:
    """The form's fields, each with every value it was sent with."""
    if request.content_type != FORM_TYPE:
        raise ApiError("invalid_request", "The sign-in form must be posted as application/x-www-form-urlencoded.")
    fields: answers.Fields = {}
    for name, value in request.form():
        fields.setdefault(name, []).append(value)
    return fields


def _unsealed(request: Request, fields: answers.Fields) -> AuthorizationRequest:
    """The request the form was shown for, if its seal holds and its CSRF token is this browser's."""
    try:
        auth, _nonce = sealed_form.unseal(single(fields, "request_blob"), single(fields, "csrf"),
                                          binding_from(request))
    except FormStateInvalid as exc:
        raise ApiError("invalid_request", STALE_FORM, internal=str(exc)) from None
    return auth


def _still_registered(request: Request, auth: AuthorizationRequest,
                      reads: factor_step.StepReads | None = None) -> Client:
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


def _each_field_once(fields: answers.Fields) -> None:
    for name, values in fields.items():
        if len(values) > 1:
            raise ApiError("invalid_request", f"The {name} field is repeated.")


# -- what both use ------------------------------------------------------------------------------


