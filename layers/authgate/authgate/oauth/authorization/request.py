"""Validation of an authorization request (RFC 6749 4.1.1, 3.1.2, 4.1.2.1; RFC 7636 4.3; RFC 9700 2.1; RFC 9396 2).

Two stages, because they fail differently. `resolve_target` establishes the client and the
redirect URI; until both are trusted nothing may be redirected to, so its errors are shown on
the error page (RFC 6749 4.1.2.1 first paragraph). `validate` checks everything else; its
errors are redirected to the now-trusted URI.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from authgate.clients.model import Client
from authgate.errors import ApiError
from authgate.oauth import pkce, rich_authorization
from authgate.oauth.authorization import openid_request
from authgate.oauth.redirect_uris import BAD_PERCENT, well_formed_uri
from authgate.oauth.resource_indicator import (
    client_may_request,
    requested_resource,
    resolve,
    several_resources,
)
from authgate.oauth.scopes import IDENTITY_SCOPES, ScopeSyntaxError, parse_scope
from authgate.resources.model import Resource
from authgate.stores.batch import BatchRead, Pending
from authgate.stores.tenants import TenantStore
from authgate.tenants.model import Tenant
from authgate.tenants.model import from_item as tenant_from_item

# client_id is VSCHAR (RFC 6749 A.1); bounded so an absurd value is rejected before any lookup.
_VSCHAR = re.compile(r"[\x20-\x7E]{1,200}")

# RFC 9449 10: dpop_jkt is a base64url SHA-256 JWK thumbprint (43 characters).
_JKT = re.compile(r"[A-Za-z0-9_-]{43}")


class Target(NamedTuple):
    """Where errors and the code may go: a known client and a redirect URI registered for it."""

    client: Client
    redirect_uri: str
    # Whether the request named it (False: the client's only URI was used). The code remembers
    # this, because the token request must then repeat it or omit it (RFC 6749 4.1.3).
    redirect_uri_sent: bool
    state: str | None


class AuthorizationRequest(NamedTuple):
    """A fully validated request: what the consent page shows and the code will be bound to."""

    client_id: str
    tenant_id: str
    redirect_uri: str
    redirect_uri_sent: bool
    scopes: tuple[str, ...]
    state: str | None
    code_challenge: str
    code_challenge_method: str
    # RFC 8707 2: the resource the token will be for (None: not named).
    resource: str | None = None
    # RFC 9449 10: the DPoP key the code must be redeemed with (None: not bound).
    dpop_jkt: str | None = None
    # OpenID Connect (oauth.authorization.openid_request), only with scope openid.
    nonce: str | None = None
    prompt: str = ""
    max_age: int | None = None
    login_hint: str | None = None
    hinted_sub: str | None = None
    # The session (sid) a consent-only form was shown for: its POST needs no password (single_sign_on).
    sid: str | None = None
    # How strongly the person must sign in (openid_request: acr_values, an essential acr claim; RFC 9470 4).
    acr_values: tuple[str, ...] = ()
    essential_acr: tuple[str, ...] = ()
    # RFC 9396 2: the checked authorization_details as canonical JSON (oauth.rich_authorization), or None.
    authorization_details: str | None = None


def single(params: Mapping[str, Sequence[str]], name: str) -> str | None:
    """One parameter's value; "" counts as absent (RFC 6749 3.1); a repeat is invalid_request."""
    values = params.get(name) or []
    if len(values) > 1:
        raise ApiError("invalid_request", f"The {name} parameter is repeated (RFC 6749 3.1).")
    return values[0] if values and values[0] != "" else None


def first_state(params: Mapping[str, Sequence[str]]) -> str | None:
    """The state to echo, even while reporting an error about it (RFC 6749 4.1.2.1)."""
    values = [v for v in params.get("state") or [] if v != ""]
    return values[0] if values else None


def resolve_target(params: Mapping[str, Sequence[str]], client: Client | None, stage: str | None = None) -> Target:
    """Trust the client, then the redirect URI: an exact, character-for-character match with a
    registered one (RFC 6749 3.1.2.3, RFC 9700 4.1.3).

    With `stage`, `client` was read in any environment, and one registered for another gets its
    own page (unknown and misplaced clients are different mistakes); without it, `client` is
    already known to belong here."""
    if client is None:
        raise ApiError("unknown_client", "No client with this client_id is registered. Check the client_id "
                                         "the application sends.")
    if stage is not None and client.environment != stage:
        # Client ids are not secrets (RFC 6749 2.2); saying where this one belongs is what the
        # developer who mixed up two stages needs. Its secret and redirect URIs stay unusable.
        raise ApiError("client_of_another_environment",
                       f"The client {client.client_id} is registered for the {client.environment} environment, "
                       f"not for this one ({stage}). Use a client registered here.",
                       oauth_error="unauthorized_client")
    try:
        sent = single(params, "redirect_uri")
    except ApiError:
        raise ApiError("invalid_request", "The redirect_uri parameter is repeated.") from None
    if sent is None:
        if len(client.redirect_uris) == 1:
            return Target(client, client.redirect_uris[0], False, first_state(params))
        raise ApiError("invalid_request", "The redirect_uri parameter is required for this client.")
    if not well_formed_uri(sent):
        raise ApiError("invalid_request", "The redirect_uri parameter is not a well-formed absolute URI.")
    # Plain string equality on purpose: no normalisation of case, port, path or encoding.
    if sent not in client.redirect_uris:
        raise ApiError("redirect_uri_mismatch", "The redirect_uri does not match a URI registered for this client.")
    return Target(client, sent, True, first_state(params))


def client_id_of(params: Mapping[str, Sequence[str]]) -> str:
    """The client_id, or invalid_request (missing, repeated, badly encoded) shown on the page."""
    client_id = single(params, "client_id")
    if client_id is None:
        raise ApiError("invalid_request", "The client_id parameter is required.")
    if not _VSCHAR.fullmatch(client_id) or BAD_PERCENT.search(client_id):
        raise ApiError("invalid_request", "The client_id parameter is badly encoded.")
    return client_id


def client_tenant(client: Client, prefetched: Pending | None = None) -> Tenant:
    """The tenant a client's authorization requests are checked against; Tenant("") for a self-registered
    client, which has none until a user signs in (its user's tenant is checked then). `prefetched`: its
    record registered in a batch read that has run (`tenant_read`)."""
    if not client.tenant_id:
        return Tenant(tenant_id="")
    if prefetched is not None:
        item = prefetched.item
        tenant = tenant_from_item(item) if item else None
    else:
        tenant = TenantStore().get(client.tenant_id)
    if tenant is None:
        raise ApiError("server_error", internal=f"tenant {client.tenant_id!r} of client {client.client_id!r} not found")
    return tenant


def tenant_read(reads: BatchRead, client: Client) -> Pending | None:
    """Register the client's tenant in a request's batch read (None for a self-registered client)."""
    return TenantStore().prefetch(reads, client.tenant_id) if client.tenant_id else None


def validate(params: Mapping[str, Sequence[str]], target: Target, tenant: Tenant,
             issuer: str = "") -> AuthorizationRequest:
    """Every check after the redirect URI is trusted; each failure is redirected (RFC 6749 4.1.2.1)."""
    for name, values in params.items():
        if len(values) > 1:
            if name == "resource":
                raise several_resources()
            raise ApiError("invalid_request", f"The {name} parameter is repeated (RFC 6749 3.1).")
    client = target.client
    openid_request.refuse_unsupported(params)
    response_type = single(params, "response_type")
    if response_type is None:
        raise ApiError("invalid_request", "The response_type parameter is required.")
    if response_type != "code":
        raise ApiError("unsupported_response_type", "Only response_type=code is supported.")
    if not client.allows_grant("authorization_code"):
        raise ApiError("unauthorized_client", "This client may not use the authorization code grant.")
    challenge, method = _pkce(params, client)
    resource = requested_resource(list(params.get("resource") or []), issuer)
    resolved = resolve(resource, issuer, _known(tenant))
    scopes = _scopes(single(params, "scope"), client, tenant, resolved)
    details = rich_authorization.requested(single(params, rich_authorization.PARAMETER), resolved, tenant, issuer)
    if client.requires_admin_approval and not tenant.has_approved(client.client_id):
        raise ApiError("access_denied", "The tenant's administrator has not approved this application.")
    dpop_jkt = single(params, "dpop_jkt")
    if dpop_jkt is not None and not _JKT.fullmatch(dpop_jkt):
        raise ApiError("invalid_request", "dpop_jkt must be a base64url SHA-256 JWK thumbprint (RFC 9449 10).")
    openid = (openid_request.read(params, public_client=client.is_public, issuer=issuer)._asdict() if "openid" in scopes
              else openid_request.assurance_parameters(params))
    return AuthorizationRequest(
        client_id=client.client_id, tenant_id=client.tenant_id, redirect_uri=target.redirect_uri,
        redirect_uri_sent=target.redirect_uri_sent, scopes=scopes, state=target.state,
        code_challenge=challenge, code_challenge_method=method, resource=resource, dpop_jkt=dpop_jkt,
        authorization_details=details, **openid,
    )


def _known(tenant: Tenant) -> str | None:
    # Tenant("") stands for the tenant a self-registered client's user has not named yet: its rules
    # (resources open to it, forbidden scopes) are checked once the user has signed in.
    return tenant.tenant_id or None


def recheck(request: AuthorizationRequest, client: Client, tenant: Tenant, issuer: str) -> None:
    """The rules that depend on registration data, again at POST time (it may have changed)."""
    if not client.allows_grant("authorization_code"):
        raise ApiError("unauthorized_client", "This client may not use the authorization code grant.")
    resolved = resolve(request.resource, issuer, _known(tenant))
    _scopes(" ".join(request.scopes), client, tenant, resolved)
    # The registered types' schemas and the tenant's currencies may have changed too (RFC 9396 2).
    rich_authorization.requested(request.authorization_details, resolved, tenant, issuer)
    if client.requires_admin_approval and not tenant.has_approved(client.client_id):
        raise ApiError("access_denied", "The tenant's administrator has not approved this application.")


def _pkce(params: Mapping[str, Sequence[str]], client: Client) -> tuple[str, str]:
    """S256 only (RFC 7636 4.3, RFC 9700 2.1.1); required for public clients, optional otherwise."""
    challenge = single(params, "code_challenge")
    method = single(params, "code_challenge_method")
    if challenge is None:
        if method is not None:
            raise ApiError("invalid_request", "code_challenge_method was sent without code_challenge.")
        if client.is_public:
            raise ApiError("invalid_request", "Public clients must use PKCE: send code_challenge with "
                                              "code_challenge_method=S256 (RFC 7636).")
        return "", ""
    if method != "S256":
        # An absent method means plain (RFC 7636 4.3), which is not supported either.
        raise ApiError("invalid_request", "Only code_challenge_method=S256 is supported (RFC 7636 4.3).")
    if not pkce.is_s256_challenge(challenge):
        # Any other value can never match BASE64URL(SHA256(verifier)): refused now, not at the token endpoint.
        raise ApiError("invalid_request", "code_challenge must be 43 base64url characters under S256, "
                                          "BASE64URL(SHA256(code_verifier)) (RFC 7636 4.2).")
    return challenge, method


def _scopes(raw: str | None, client: Client, tenant: Tenant, resource: Resource) -> tuple[str, ...]:
    """Requested scopes, or the resource's ones the client may have and the tenant allows when none is
    sent (RFC 6749 3.3, RFC 8707 2)."""
    if raw is None:
        default = tuple(s for s in resource.scopes if client_may_request(client, resource, s, consent=True) and not tenant.forbids(s))
        if not default:
            raise ApiError("invalid_scope", "No scope was requested and the client has no default scope.")
        return default
    try:
        scopes = parse_scope(raw)
    except ScopeSyntaxError as exc:
        raise ApiError("invalid_scope", str(exc)) from None
    for scope in scopes:
        if scope in IDENTITY_SCOPES:
            if scope not in client.scopes:
                raise ApiError("invalid_scope", f"The client is not allowed the scope {scope}.")
            if tenant.forbids(scope):
                raise ApiError("invalid_scope", f"The tenant forbids the scope {scope}.")
            continue
        if scope not in resource.scopes:
            raise ApiError("invalid_scope", f"Unknown scope {scope}.")
        if not client_may_request(client, resource, scope, consent=True):
            raise ApiError("invalid_scope", f"The client is not allowed the scope {scope}.")
        if tenant.forbids(scope):
            raise ApiError("invalid_scope", f"The tenant forbids the scope {scope}.")
    return scopes


def consented_scopes(raw: str | None, client: Client, tenant: Tenant, resource: Resource) -> tuple[str, ...]:
    """The scopes a person will be asked to approve, checked as an authorization request's are: also those of
    a device authorization request (RFC 8628 3.1: scope as in RFC 6749 3.3)."""
    return _scopes(raw, client, tenant, resource)
