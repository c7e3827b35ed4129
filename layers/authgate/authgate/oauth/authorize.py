"""The authorization endpoint, GET and POST /oauth/authorize (RFC 6749 4.1.1-4.1.2, RFC 9207, RFC 9700).

GET validates the request and shows the login + consent form. POST (the form) checks the
signed state and CSRF token, then the user's decision and password, and redirects with a code.

Errors are raised as ApiError and rendered by http.shapes on the "authorize" surface. Until
the client and redirect URI are trusted, request.context.redirect is unset and the error is an
HTML page; from the moment it is set, every error (including an unexpected one, which the App
turns into internal_error -> server_error) is a 302 to that URI with error,
error_description, state and iss.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from authgate.clients.model import Client
from authgate.errors import ApiError
from authgate.failures import as_api_error
from authgate.http.context import AuthorizationRedirect
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.http.shapes.oauth import with_query
from authgate.issuer import base_url
from authgate.limits.auth_failures import AuthFailureGuard
from authgate.logs import get_logger
from authgate.oauth import session
from authgate.oauth.authorize_request import (
    AuthorizationRequest,
    client_id_of,
    recheck,
    resolve_target,
    single,
    validate,
)
from authgate.oauth.client_profile import check_authorization, code_ttl, requires_pushed_request
from authgate.oauth.consent_page import (
    MISSING_CREDENTIALS,
    MISSING_DECISION,
    WRONG_CREDENTIALS,
    render_consent,
)
from authgate.settings import get_settings
from authgate.stores.clients import ClientStore
from authgate.stores.codes import CodeStore
from authgate.stores.exceptions import PushedRequestError
from authgate.stores.pushed_requests import PushedRequestStore
from authgate.stores.tenants import Tenant, TenantStore
from authgate.stores.users import UserStore

FORM_TYPE = "application/x-www-form-urlencoded"
FORM_FIELDS = ("request_blob", "csrf", "username", "password", "decision")
STALE_FORM = "The sign-in form has expired or was altered. Start again from the application."


def get_authorize(request: Request) -> Response:
    """Validate the authorization request and show the login + consent page (RFC 6749 4.1.1, RFC 9126 4)."""
    params: Mapping[str, Sequence[str]] = request.query
    client = ClientStore().get(client_id_of(params), any_environment=True)
    stage = get_settings().stage
    request_uri = single(params, "request_uri")
    if client is None or client.environment != stage:
        pass  # resolve_target says which
    elif request_uri is not None:
        params = _pushed(request_uri, client)
    elif requires_pushed_request(client):
        # RFC 9126 4 (policy: PAR only) and FAPI 2.0 5.3.2.2 item 2. Shown on the page: nothing in
        # an unpushed request is trusted for this client, not even its redirect_uri.
        raise ApiError("invalid_request", "This client must push its authorization requests (POST /oauth/par) "
                                          "and send only client_id and request_uri here (RFC 9126).")
    target = resolve_target(params, client, stage=stage)
    _trust(request, target.redirect_uri, target.state)
    tenant = _tenant(target.client)
    auth = validate(params, target, tenant, base_url(request))
    check_authorization(target.client, auth.redirect_uri_sent, auth.code_challenge, auth.redirect_uri)
    return _form(request, auth, target.client, tenant)


def _pushed(request_uri: str, client: Client) -> Mapping[str, Sequence[str]]:
    """The pushed request's parameters, taken once (RFC 9126 4).

    Only those are used: like a request object's (RFC 9101 6.3, which RFC 9126 4 builds on), they
    are the whole request, and any other parameter in the query is ignored; the pushed client_id
    must be the one in the query, which consume() checks as it takes the request."""
    try:
        pushed = PushedRequestStore().consume(request_uri, client.client_id)
    except PushedRequestError as exc:
        raise as_api_error(exc) from exc
    return pushed.params


def post_authorize(request: Request) -> Response:
    """The submitted form: decision, credentials, then a code (RFC 6749 4.1.2) or an error redirect."""
    if request.content_type != FORM_TYPE:
        raise ApiError("invalid_request", "The sign-in form must be posted as application/x-www-form-urlencoded.")
    fields: dict[str, list[str]] = {}
    for name, value in request.form():
        fields.setdefault(name, []).append(value)
    try:
        auth, _nonce = session.unseal(single(fields, "request_blob"), single(fields, "csrf"),
                                      session.binding_from(request.headers.get_all("cookie")))
    except session.SessionInvalid as exc:
        raise ApiError("invalid_request", STALE_FORM, internal=str(exc)) from None
    client = ClientStore().get(auth.client_id)
    # The registration may have changed since the form was shown: trust the URI only if it still holds.
    if client is None:
        raise ApiError("unknown_client", "The client is no longer registered.")
    if auth.redirect_uri not in client.redirect_uris:
        raise ApiError("redirect_uri_mismatch", "The redirect_uri is no longer registered for this client.")
    _trust(request, auth.redirect_uri, auth.state)
    for name, values in fields.items():
        if len(values) > 1:
            raise ApiError("invalid_request", f"The {name} field is repeated.")
    tenant = _tenant(client)
    recheck(auth, client, tenant, base_url(request))

    decision = single(fields, "decision")
    if decision == "deny":
        _log("denied", auth)
        raise ApiError("access_denied", "The user denied the request.")
    username, password = single(fields, "username") or "", single(fields, "password") or ""
    if decision != "approve":
        return _form(request, auth, client, tenant, MISSING_DECISION, username, fields)
    if not username or not password:
        return _form(request, auth, client, tenant, MISSING_CREDENTIALS, username, fields)
    # Brute-force protection (RFC 6749 10.10): failed logins per account and per address; over
    # the quota the redirect is temporarily_unavailable, before the password is checked.
    guard, account = AuthFailureGuard("user"), f"{tenant.tenant_id}/{username}"
    guard.gate(account, request.source_ip)
    result = UserStore().verify(tenant.tenant_id, username, password)
    if not result.ok:
        guard.record_failure(account, request.source_ip)
        _log(f"login_{result.reason}", auth)
        return _form(request, auth, client, tenant, WRONG_CREDENTIALS, username, fields)

    code = CodeStore().create(
        client_id=auth.client_id, tenant_id=auth.tenant_id,
        redirect_uri=auth.redirect_uri, redirect_uri_sent=auth.redirect_uri_sent,
        code_challenge=auth.code_challenge, code_challenge_method=auth.code_challenge_method,
        scope=" ".join(auth.scopes), subject=result.subject, ttl=code_ttl(client),
        dpop_jkt=auth.dpop_jkt, resource=auth.resource,
    )
    _log("approved", auth)
    params = [("code", code)] + ([("state", auth.state)] if auth.state is not None else [])
    params.append(("iss", base_url(request)))
    # 303, not 302 or 307: the browser follows with a GET and never re-posts the password
    # (RFC 9700 4.12; FAPI 2.0 5.3.2.2 item 11).
    return Response(303, "", {"Location": with_query(auth.redirect_uri, params),
                              "Cache-Control": "no-store", "Pragma": "no-cache",
                              "Referrer-Policy": "no-referrer"})


def _trust(request: Request, redirect_uri: str, state: str | None) -> None:
    # From here on http.shapes.oauth.authorize_error redirects instead of showing the page.
    request.context.redirect = AuthorizationRedirect(redirect_uri, state)


def _tenant(client: Client) -> Tenant:
    tenant = TenantStore().get(client.tenant_id)
    if tenant is None:
        raise ApiError("server_error", internal=f"tenant {client.tenant_id!r} of client {client.client_id!r} not found")
    return tenant


def _form(request: Request, auth: AuthorizationRequest, client: Client, tenant: Tenant, message: str = "",
          username: str = "", posted: Mapping[str, Sequence[str]] | None = None) -> Response:
    """The consent page; a re-shown form keeps the posted state and CSRF token unchanged."""
    binding = session.binding_from(request.headers.get_all("cookie"))
    if posted is not None:
        blob, csrf = (posted.get("request_blob") or [""])[0], (posted.get("csrf") or [""])[0]
    else:
        blob, nonce = session.seal(auth)
        if binding is None:
            binding = session.new_binding()
        csrf = session.csrf_token(binding, nonce)
    response = render_consent(request=auth, client_name=client.name or client.client_id,
                              tenant_name=tenant.name or tenant.tenant_id, blob=blob, csrf=csrf,
                              message=message, username=username)
    if binding is not None and posted is None:
        secure = base_url(request).startswith("https://")
        response.multi_headers["Set-Cookie"] = [session.binding_cookie(binding, secure)]
    return response


def _log(outcome: str, auth: AuthorizationRequest) -> None:
    # Ids and outcomes only: never the username, password, code or state.
    get_logger().info("authorize", extra={"outcome": outcome, "client_id": auth.client_id,
                                          "tenant": auth.tenant_id, "scope": " ".join(auth.scopes)})
