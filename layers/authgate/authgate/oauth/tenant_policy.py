"""Whether a tenant accepts a client that registered itself (docs/agents.md "Who decides").

A Client ID Metadata Document's client is accepted when its document's host is on the tenant's
`client_metadata_hosts`; an RFC 7591 client when the tenant's `registered_clients` is on. The
policy is asked wherever such a client acts under a tenant -- the sign-in that makes the grant,
every later authorization of a client the tenant holds, and every token request of a grant (code
exchange, refresh, RFC 6749 4.1.3, 6) -- so switching the setting off stops them all, not only
new sign-ins. Access tokens already issued run until they expire.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from authgate.errors import ApiError

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.errors.codes import Code
    from authgate.stores.tenants import Tenant

REGISTRATION = "registration"
METADATA_DOCUMENT = "metadata_document"


def refusal(client: Client, tenant: Tenant | None, *, grant: bool = False) -> ApiError | None:
    """The error when `tenant` does not accept `client`, else None; an administrator's client of a
    tenant is always accepted. `grant`: refused at the token endpoint, as invalid_grant (RFC 6749 5.2)."""
    code: Code
    if client.source == REGISTRATION:
        if tenant is not None and tenant.registered_clients:
            return None
        what = "applications that registered themselves"
        code, setting = "registered_client_not_allowed", "registered_clients"
    elif client.source == METADATA_DOCUMENT or not client.tenant_id:
        host = urlsplit(client.client_id).hostname or "" if client.source == METADATA_DOCUMENT else ""
        if host and tenant is not None and tenant.accepts_metadata_host(host):
            return None
        what = f"applications known only by a metadata document from {host}"
        code, setting = "client_metadata_not_allowed", "client_metadata_hosts"
    else:
        return None
    internal = f"tenant {tenant.tenant_id if tenant else '?'} policy ({setting})"
    if grant:
        return ApiError(code, f"The organisation this grant was made in no longer accepts {what}; sign in again "
                        "once its administrator allows it.", oauth_error="invalid_grant", internal=internal)
    return ApiError(code, f"Your organisation does not accept {what}. Ask its administrator.",
                    oauth_error="invalid_client", internal=internal)


def check(client: Client, tenant: Tenant | None, *, grant: bool = False) -> None:
    """Raise `refusal(client, tenant)` when there is one."""
    refused = refusal(client, tenant, grant=grant)
    if refused is not None:
        raise refused
