"""Resource indicators (RFC 8707): the `resource` parameter names the API a token is for.

The resources are registered (stores.resources) with their own scopes and the tenants that
may use them; the charges API, `<issuer>/charges`, is built in: known on every stage without a
record, with the scopes of oauth.scopes, open to every tenant. A request names one resource or
none (then the token is for the charges API, RFC 6749 3.3's documented default). Anything else
is invalid_target (RFC 8707 2): not an absolute URI, a fragment, more than one value (one
audience per token, so a token is never accepted by two resource servers), a resource not
registered (`unknown_resource`) or one the tenant may not use (`resource_not_allowed`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from authgate.errors import ApiError
from authgate.oauth.scopes import (
    CHARGES_DESCRIPTION,
    CHARGES_NAME,
    CHARGES_SCOPE_DESCRIPTIONS,
    KNOWN_SCOPES,
)
from authgate.resources.model import Resource
from authgate.tokens.jwt_profile import default_audience

if TYPE_CHECKING:
    from authgate.clients.model import Client


def builtin_resource(issuer: str) -> Resource:
    """The charges API as a resource: every tenant, the scopes every deployment knows."""
    return Resource(resource=default_audience(issuer), scopes=KNOWN_SCOPES, name=CHARGES_NAME,
                    description=CHARGES_DESCRIPTION, scope_descriptions=CHARGES_SCOPE_DESCRIPTIONS, builtin=True)


def several_resources() -> ApiError:
    """More than one `resource`: refused, one audience per token (RFC 8707 2 lets a server decline)."""
    return ApiError("invalid_target", "Name one resource per request: a token has one audience here "
                                      "(RFC 8707 2); ask for a token per resource.")


def requested_resource(values: list[str], issuer: str) -> str | None:
    """The resource a request names (None for none), or invalid_target when malformed (RFC 8707 2)."""
    values = [v for v in values if v != ""]
    if not values:
        return None
    if len(values) > 1:
        raise several_resources()
    value = values[0]
    try:
        parts = urlsplit(value)
    except ValueError:
        parts = None
    if parts is None or not parts.scheme or not parts.netloc or "#" in value:
        raise ApiError("invalid_target", "The resource parameter must be an absolute URI without a fragment "
                                         "(RFC 8707 2).")
    return value


def resolve(named: str | None, issuer: str, tenant_id: str | None) -> Resource:
    """The resource a token will be for: the named one if registered and open to the tenant (RFC 8707 2).

    `tenant_id` None: not known yet (a self-registered client before its user signs in); the
    tenant is checked once it is."""
    builtin = builtin_resource(issuer)
    if named is None or named.rstrip("/") == builtin.resource:
        return builtin
    from authgate.stores.resource_cache import get_resource

    resource = get_resource(named)
    if resource is None:
        raise ApiError("unknown_resource", f"The resource {named[:200]} is not registered with this "
                                           "authorization server.", oauth_error="invalid_target")
    if tenant_id is not None and not resource.allows_tenant(tenant_id):
        raise ApiError("resource_not_allowed", f"The resource {named[:200]} is not available to this tenant.",
                       oauth_error="invalid_target", internal=f"tenant={tenant_id}")
    return resource


def granted_resource(recorded: str | None, named: str | None, issuer: str, tenant_id: str) -> Resource:
    """A grant's resource at the token endpoint (RFC 8707 2.2): the request may name it again, no other."""
    recorded_resource = resolve(recorded, issuer, tenant_id)
    if named is not None and resolve(named, issuer, tenant_id).resource != recorded_resource.resource:
        raise ApiError("invalid_target", "The resource is not the one this grant was issued for (RFC 8707 2.2).")
    return recorded_resource


def client_may_request(client: Client, resource: Resource, scope: str, *, consent: bool) -> bool:
    """Whether the client's registration lets it ask for `scope` of `resource`.

    The charges API keeps its rule: a client asks only for scopes it is registered with. For a
    registered resource, the scopes an administrator granted the client for it (`resource_scopes`,
    `authgate clients update --resource-scopes`) are all it may have. Without such a grant:
    - where no person consents (`consent` False: client_credentials, password), nothing: a new
      resource is not open to every client of its tenants (RFC 6749 4.4, RFC 9700 2.3);
    - where a person consents to each request (authorization code, refresh), any of the resource's
      scopes, and the resource's list, the tenant and the person decide. That holds for a client that
      registered itself (RFC 7591, or a metadata document): its `scope` is what it said it would
      use, and MCP clients register with the scope of the first challenge, then step up (RFC 6750
      3.1) without registering again. An administrator's client registered with some of the
      resource's scopes in `scopes` stays limited to those.
    """
    if resource.builtin:
        return scope in client.scopes
    granted = client.granted_scopes(resource.resource)
    if granted:
        return scope in granted
    if not consent:
        return False
    if client.source in ("registration", "metadata_document") or not any(s in client.scopes for s in resource.scopes):
        return True
    return scope in client.scopes
