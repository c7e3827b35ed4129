"""Whether the authorization endpoint serves a client's request (RFC 6749 4.1.2.1, RFC 9126 4): the redirect URI
trusted from here on, the tenant's policy on the client, a pushed request's parameters, prompt=none (OpenID Connect
Core 3.1.2.6), and a self-registered client's tenant once its user signed in (the person an id_token_hint names is
the interaction's: interaction.outcome)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from authgate.clients.model import REGISTRATION_SOURCE, Client
from authgate.errors import ApiError
from authgate.failures import as_api_error
from authgate.http.context import AuthorizationRedirect
from authgate.http.request import Request
from authgate.issuer import base_url
from authgate.oauth.authorization.outcome_log import log
from authgate.oauth.authorization.request import (
    AuthorizationRequest,
    client_tenant,
    recheck,
    single,
)
from authgate.oauth.clients import registered, tenant_policy
from authgate.oauth.clients.profile import requires_pushed_request
from authgate.settings import get_settings
from authgate.single_use.errors import PushedRequestError
from authgate.stores.batch import Pending
from authgate.stores.pushed_requests import PushedRequestStore
from authgate.stores.tenants import TenantStore
from authgate.tenants.model import Tenant

# OpenID Connect Core 3.1.2.6: why prompt=none could not be honoured.
PROMPT_NONE = {
    "login_required": "The user is not signed in, and prompt=none forbids asking them to.",
    "consent_required": "The user has not approved these scopes for this client, and prompt=none forbids asking.",
}


def trust(request: Request, client: Client, redirect_uri: str, state: str | None) -> None:
    """From here on http.shapes.oauth.authorize_error redirects instead of showing the page; for a self-registered
    client, until `vouched`, the page offers the redirect as a link instead (RFC 9700 4.11.2)."""
    request.context.redirect = AuthorizationRedirect(redirect_uri, state, follow=not client.source)


def vouched(request: Request) -> None:
    """This browser's person approved the client before (single sign-on's remembered consent): its errors are
    redirected at once, as an administrator-registered client's."""
    if request.context.redirect is not None:
        request.context.redirect = request.context.redirect._replace(follow=True)


def admitted_tenant(request: Request, client: Client, prefetched: Pending | None = None) -> Tenant:
    """The tenant the client's requests are checked against (Tenant("") before a self-registered client's
    user signs in), once its policy accepts the client (`prefetched`: read already in a batch)."""
    tenant = client_tenant(client, prefetched)
    admitted(request, client, tenant)
    return tenant


def admitted(request: Request, client: Client, tenant: Tenant) -> None:
    """A self-registered client the tenant holds (or, after sign-in, the user's tenant) must still be accepted
    by its policy (oauth.clients.tenant_policy); a refusal is a page: nothing is sent to a redirect URI the tenant
    does not accept. Before sign-in (Tenant("")) there is nothing to ask yet."""
    if not tenant.tenant_id:
        return
    refused = tenant_policy.refusal(client, tenant)
    if refused is not None:
        request.context.redirect = None
        raise refused


def self_registered(request: Request, client: Client, auth: AuthorizationRequest,
                    tenant_id: str) -> AuthorizationRequest:
    """After a correct password, the signed-in user's tenant decides (docs/agents.md): its policy on the
    client (a page), then its rules on the request (forbidden scopes, the resource's tenants: redirected,
    as for any client); a registered client (RFC 7591) then becomes the tenant's, within its cap."""
    tenant = TenantStore().get(tenant_id) or Tenant(tenant_id=tenant_id)
    admitted(request, client, tenant)
    recheck(auth, client, tenant, base_url(request))
    if client.source == REGISTRATION_SOURCE:
        trusted, request.context.redirect = request.context.redirect, None  # its refusals are pages too
        registered.assign(client, tenant)
        request.context.redirect = trusted
    return auth._replace(tenant_id=tenant.tenant_id)


def request_parameters(params: Mapping[str, Sequence[str]], client: Client | None) -> Mapping[str, Sequence[str]]:
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


def page_allowed(auth: AuthorizationRequest, why: Literal["login_required", "consent_required"]) -> None:
    """prompt=none: the client asked for no page at all, and this person must see one (OpenID Connect Core
    3.1.2.1, 3.1.2.6): login_required (not signed in, or not recently enough) or consent_required, redirected."""
    if auth.prompt == "none":
        log(why, auth)
        raise ApiError(why, PROMPT_NONE[why])
