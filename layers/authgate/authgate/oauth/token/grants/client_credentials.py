"""The client credentials grant (RFC 6749 §4.4): confidential clients only, no refresh token (§4.4.3)."""

from __future__ import annotations

from authgate.errors import ApiError
from authgate.oauth.resource_indicator import resolve
from authgate.oauth.token.grants.base import (
    Grant,
    TokenRequest,
    TokenResult,
    check_scopes,
    issued,
    requested_scopes,
)
from authgate.stores.tenant_cache import get_tenant


class ClientCredentialsGrant(Grant):
    GRANT_TYPE = "client_credentials"

    def exchange(self, req: TokenRequest) -> TokenResult:
        client = req.client
        if client.is_public:
            raise ApiError("unauthorized_client", "Public clients cannot use client_credentials (RFC 6749 4.4).")
        requested = requested_scopes(req.form.get("scope"))
        tenant = get_tenant(client.tenant_id)  # warm-cached for 60 s: one DynamoDB call per token
        if client.requires_admin_approval and (tenant is None or not tenant.has_approved(client.client_id)):
            raise ApiError("unauthorized_client", "The tenant's administrator has not approved this client.")
        resource = resolve(req.resource, req.issuer, client.tenant_id)
        scopes = check_scopes(requested, client, tenant, resource)
        # RFC 9068 2.2: with no resource owner, sub is the client itself.
        return issued(req, subject=client.client_id, tenant=client.tenant_id, scopes=scopes, audience=resource.resource)
