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
from authgate.oauth import session, tenant_policy
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
    identity_notice,
    render_consent,
)
from authgate.oauth.resource_indicator import resolve
from authgate.settings import get_settings
from authgate.stores.clients import ClientStore
from authgate.stores.codes import CodeStore
from authgate.stores.exceptions import PushedRequestError
from authgate.stores.pushed_requests import PushedRequestStore
from authgate.stores.tenants import Tenant, TenantStore
from authgate.stores.users import UserStore

FORM_TYPE = "application/x-www-form-urlencoded"
STALE_FORM = "The sign-in form has expired or was altered. Start again from the application."


def get_authorize(request: Request) -> Response:
    """Validate the authorization request and show the login + consent page (RFC 6749 4.1.1, RFC 9126 4)."""
    params: Mapping[str, Sequence[str]] = request.query
    client = _client(client_id_of(params), request.source_ip, any_environment=True)
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
    _admitted(request, target.client, tenant)
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
    client = _client(auth.client_id, request.source_ip)
    # The registration may have changed since the form was shown: trust the URI only if it still holds.
    if client is None:
        raise ApiError("unknown_client", "The client is no longer registered.")
    if auth.redirect_uri not in client.redirect_uris:
        raise ApiError("redirect_uri_mismatch", "The redirect_uri is no longer registered for this client.")
    _trust(request, auth.redirect_uri, auth.state)
    for name, values in fields.items():
        if len(values) > 1:
            raise ApiError("invalid_request", f"The {name} field is repeated.")
    # A self-registered client has no tenant yet (Tenant("")): the user names theirs on the form,
    # and until the password is checked nothing here depends on which tenant that is -- whether it
    # exists, forbids the scopes or refuses the client -- so the answers cannot tell tenants apart.
    tenant = _tenant(client)
    _admitted(request, client, tenant)
    recheck(auth, client, tenant, base_url(request))

    decision = single(fields, "decision")
    if decision == "deny":
        _log("denied", auth)
        raise ApiError("access_denied", "The user denied the request.")
    username, password = single(fields, "username") or "", single(fields, "password") or ""
    if decision != "approve":
        return _form(request, auth, client, tenant, MISSING_DECISION, username, fields)
    tenant_id = client.tenant_id or (single(fields, "tenant") or "").strip()[:100]
    if not username or not password or not tenant_id:
        return _form(request, auth, client, tenant, MISSING_CREDENTIALS, username, fields)
    # Brute-force protection (RFC 6749 10.10): failed logins per account and per address; over
    # the quota the redirect is temporarily_unavailable, before the password is checked.
    guard, account = AuthFailureGuard("user"), f"{tenant_id}/{username}"
    guard.gate(account, request.source_ip)
    # A tenant that does not exist holds no user: the same scrypt work and answer as a wrong password.
    result = UserStore().verify(tenant_id, username, password)
    if not result.ok:
        guard.record_failure(account, request.source_ip)
        _log(f"login_{result.reason}", auth)
        return _form(request, auth, client, tenant, WRONG_CREDENTIALS, username, fields)
    if not client.tenant_id:
        tenant = TenantStore().get(tenant_id) or Tenant(tenant_id=tenant_id)
        _admit_self_registered(request, client, tenant, auth)
        auth = auth._replace(tenant_id=tenant.tenant_id)

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


def _client(client_id: str, source: str, any_environment: bool = False) -> Client | None:
    """The client: registered, or known by its metadata document (fetched for `source`, the request's
    address, or cached; the fetch's failures are shown on the page, never redirected:
    draft-ietf-oauth-client-id-metadata-document-02 5.1)."""
    if client_id[:8].lower() == "https://":
        from authgate.oauth.client_metadata.errors import MetadataRefused
        from authgate.oauth.client_metadata.resolver import MetadataClients, is_metadata_client

        if is_metadata_client(client_id):
            try:
                return MetadataClients(source=source).get(client_id, any_environment)
            except MetadataRefused as exc:
                raise exc.at_authorization() from None
    return ClientStore().get(client_id, any_environment=any_environment)


def _admitted(request: Request, client: Client, tenant: Tenant) -> None:
    """A self-registered client the tenant holds (or, after sign-in, the user's tenant) must still be accepted
    by its policy (oauth.tenant_policy); a refusal is a page: nothing is sent to a redirect URI the tenant
    does not accept. Before sign-in (Tenant("")) there is nothing to ask yet."""
    if not tenant.tenant_id:
        return
    refused = tenant_policy.refusal(client, tenant)
    if refused is not None:
        request.context.redirect = None
        raise refused


def _admit_self_registered(request: Request, client: Client, tenant: Tenant, auth: AuthorizationRequest) -> None:
    """After a correct password, the signed-in user's tenant decides (docs/agents.md): its policy on the
    client (a page), then its rules on the request (forbidden scopes, the resource's tenants: redirected,
    as for any client); a registered client (RFC 7591) then becomes the tenant's, within the tenant's cap."""
    _admitted(request, client, tenant)
    recheck(auth, client, tenant, base_url(request))
    if client.source == tenant_policy.REGISTRATION:
        trusted, request.context.redirect = request.context.redirect, None  # its refusals are pages too
        _assign_registered(client, tenant)
        request.context.redirect = trusted


def _assign_registered(client: Client, tenant: Tenant) -> None:
    from authgate import clock
    from authgate.stores.exceptions import ClientNotFound
    from authgate.stores.registrations import DAY, RegistrationStore

    store = RegistrationStore()
    cap = tenant.registered_clients_cap
    if store.live_count(tenant.tenant_id, clock.seconds(), cap) >= cap:
        raise ApiError("registration_limit_reached", "Your organisation already holds as many registered "
                       "applications as it allows. Ask its administrator.", oauth_error="invalid_client")
    try:
        # Used from now on: the deployment's idle lifetime replaces the unused registration's day.
        store.assign(client.client_id, tenant.tenant_id, clock.seconds() + get_settings().registration_idle_days * DAY)
    except ClientNotFound:
        # Another tenant's user signed in first: the client is that tenant's now.
        refused = tenant_policy.refusal(client, None)
        assert refused is not None
        raise refused from None


def _tenant(client: Client) -> Tenant:
    if not client.tenant_id:
        # A self-registered client has no tenant until a user signs in (the form asks for it).
        return Tenant(tenant_id="")
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
    self_registered = not client.tenant_id
    # The API the token is for, as its registration describes it (its tenants were checked already).
    resource = resolve(auth.resource, base_url(request), None)
    response = render_consent(request=auth, resource=resource, client_name=client.name or client.client_id,
                              # Never the name of a tenant someone typed: the page must not confirm it exists.
                              tenant_name="your organisation" if self_registered else tenant.name or tenant.tenant_id,
                              blob=blob, csrf=csrf,
                              message=message, username=username,
                              identity=identity_notice(client, auth.redirect_uri) if client.source else "",
                              ask_tenant=self_registered,
                              tenant=single(posted, "tenant") or "" if self_registered and posted else "")
    if binding is not None and posted is None:
        secure = base_url(request).startswith("https://")
        response.multi_headers["Set-Cookie"] = [session.binding_cookie(binding, secure)]
    return response


def _log(outcome: str, auth: AuthorizationRequest) -> None:
    # Ids and outcomes only: never the username, password, code or state.
    get_logger().info("authorize", extra={"outcome": outcome, "client_id": auth.client_id,
                                          "tenant": auth.tenant_id, "scope": " ".join(auth.scopes)})
