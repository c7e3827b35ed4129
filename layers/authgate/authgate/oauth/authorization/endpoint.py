"""The authorization endpoint, GET and POST /oauth/authorize (RFC 6749 4.1.1-4.1.2, RFC 9207, RFC 9700).

GET validates the request and shows the login + consent form. POST (the form) checks the
signed state and CSRF token, then runs the step the form names in it (form_steps: the decision,
then the interaction's sign-in; a signed-in person's consent) and redirects with a code.
Each is a list of named steps in their security order, as node-oidc-provider composes its
authorization actions (lib/actions/authorization/*.js): what a step relies on was checked by
the steps before it. The handlers stay thin; the steps live in modules named after them:
`admission` (whether the client's request is served), `form_steps` (each form's step, by the
name its sealed state carries), `hand_off` and `resume` (what the interaction is given, and what
is done with the person it gives back) and `answers` (the page, the code's redirect, the outcome log).
A person proves who they are in the interaction (authgate.interaction), never here.

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
from authgate.interaction import factor_step, steps
from authgate.interaction.binding import binding_from
from authgate.interaction.messages import STALE_FORM
from authgate.interaction.sealed_state import FormStateInvalid
from authgate.interaction.sessions import authentication_of, needs_sign_in
from authgate.issuer import base_url
from authgate.oauth.authorization import (
    admission,
    answers,
    form_steps,
    resume,
    sealed_form,
    single_sign_on,
)
from authgate.oauth.authorization.factor_reads import StepReads, step_reads
from authgate.oauth.authorization.hand_off import Fresh, hand_off
from authgate.oauth.authorization.request import (
    AuthorizationRequest,
    client_id_of,
    recheck,
    resolve_target,
    single,
    tenant_read,
    validate,
)
from authgate.oauth.authorization.sealed_form import Sealed
from authgate.oauth.clients.lookup import ClientLookup
from authgate.oauth.clients.profile import check_authorization
from authgate.settings import get_settings
from authgate.stores.batch import BatchRead
from authgate.stores.identity_provider_cache import prefetch_options

FORM_TYPE = "application/x-www-form-urlencoded"


def get_authorize(request: Request) -> Response:
    """Validate the authorization request and show the login + consent page (RFC 6749 4.1.1, RFC 9126 4).

    1. the client, read in any environment (a misplaced client gets its own page);
    2. the request's parameters: a pushed request's, taken once, or the query's when the client
       need not push (RFC 9126 4);
    3. the client of this environment and its registered redirect URI; from here errors redirect;
    4. the client's tenant, and its policy on a self-registered client (a page);
    5. every other parameter, then the client's profile (FAPI 2.0 5.3.2.2);
    6. a browser signed in already (single_sign_on): the code at once, the interaction's second factor the
       request still asks, or the consent alone; otherwise the form: the sealed request and its CSRF token,
       bound to this browser."""
    return _authorization_request(request, request.query)


def _authorization_request(request: Request, params: Mapping[str, Sequence[str]]) -> Response:
    """An authorization request, from the query (GET) or a form (POST, OpenID Connect Core 3.1.2.1)."""
    client = _client(request, client_id_of(params), any_environment=True)
    params = admission.request_parameters(params, client)
    target = resolve_target(params, client, stage=get_settings().stage)
    admission.trust(request, target.client, target.redirect_uri, target.state)
    # The client's tenant, its sign-in options (on a cache miss) and the browser's session in one BatchGetItem (the
    # session is used only after every check of the request below).
    reads = BatchRead(operation="authorize.batch_get")
    tenant_pending = tenant_read(reads, target.client)
    options_pending = prefetch_options(reads, target.client.tenant_id)
    session_pending = single_sign_on.session_read(reads, request, target.client)
    reads.run()
    if options_pending is not None:
        options_pending.keep()
    tenant = admission.admitted_tenant(request, target.client, tenant_pending)
    auth = validate(params, target, tenant, base_url(request))
    check_authorization(target.client, auth.redirect_uri_sent, auth.code_challenge, auth.redirect_uri)
    session, remembered, totp, passkeys = single_sign_on.checked_session(session_pending, target.client, auth)
    if remembered:
        admission.vouched(request)
    fresh = Fresh(request, auth)
    handoff = hand_off(request, target.client, tenant, auth, fresh, notes={"approved": False, "remembered": remembered})
    if session is None or needs_sign_in(handoff, session):
        admission.page_allowed(auth, "login_required")
        return answers.form(request, auth, target.client, tenant, username=auth.login_hint or "")
    page = factor_step.step_up(request, handoff, session, totp, passkeys)
    if page is not None:
        page.multi_headers["Set-Cookie"] = [*([fresh.cookie] if fresh.cookie else []),
                                            *page.multi_headers.get("Set-Cookie", [])]
        return page
    if single_sign_on.consent_needed(auth, remembered):
        admission.page_allowed(auth, "consent_required")
        return answers.form(request, auth._replace(sid=session.sid), target.client, tenant, signed_in_as=session.username)
    # Signed in and approved before: the code at once, no page (OpenID Connect Core 3.1.2.5).
    return resume.approved(request, target.client, auth, authentication_of(session), remembered=True, status=302)


def post_authorize(request: Request) -> Response:
    """The submitted form: a code (RFC 6749 4.1.2) or an error redirect.

    1. the form's media type and fields;
    2. the sealed request and the CSRF token bound to this browser (RFC 6749 10.12): nothing the
       browser could edit is trusted, and a form that fails here, or whose fields are another step's, is a page;
    3. the client and its redirect URI as they stand now; from here errors redirect;
    4. every field once;
    5. the client's tenant and its policy, and the rules that depend on the registration, again;
    6. the step the form's sealed state names (form_steps): the decision (deny is access_denied), the
       interaction's sign-in (its throttles, a forced password change, a second factor, the person an
       id_token_hint names), a self-registered client's tenant (the signed-in user's, whose policy and rules
       decide), then the code, bound to the request, and the 303 to the client."""
    fields = _posted_fields(request)
    if "request_blob" not in fields and ("client_id" in fields or "response_type" in fields):
        # OpenID Connect Core 3.1.2.1: the authorization endpoint MUST take the request by POST as well; a
        # request is one posted with no sealed state at all, and carrying client_id or response_type.
        return _authorization_request(request, fields)
    sealed = _unsealed(request, fields)
    posted = {name: values[0] for name, values in fields.items() if values}
    try:
        run = steps.handler(form_steps.STEPS, sealed.step, posted, form_steps.CARRIES)
    except steps.Stale as exc:
        raise ApiError("invalid_request", STALE_FORM, internal=str(exc)) from None
    # A second-factor step's reads (client, tenant, session, user) in one BatchGetItem.
    reads = step_reads(request, posted, sealed.request, _lookup(request)) if sealed.step == steps.FACTOR else None
    auth = sealed.request
    client = _still_registered(request, auth, reads)
    admission.trust(request, client, auth.redirect_uri, auth.state)
    _each_field_once(fields)
    tenant = admission.admitted_tenant(request, client, reads.tenant if reads and client.tenant_id == auth.tenant_id else None)
    recheck(auth, client, tenant, base_url(request))
    return form_steps.run(run, form_steps.Posted(request, client, tenant, posted, sealed, reads))


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


def _unsealed(request: Request, fields: answers.Fields) -> Sealed:
    """The request the form was shown for and its step, if its seal holds and its CSRF token is this browser's."""
    try:
        return sealed_form.unseal(single(fields, "request_blob"), single(fields, "csrf"), binding_from(request))
    except FormStateInvalid as exc:
        raise ApiError("invalid_request", STALE_FORM, internal=str(exc)) from None


def _still_registered(request: Request, auth: AuthorizationRequest,
                      reads: StepReads | None = None) -> Client:
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
