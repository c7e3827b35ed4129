"""The tokens of a person's approval, however it reached the token endpoint: an authorization code (RFC 6749
4.1.3) or a device code (RFC 8628 3.5).

The tenant's switches hold until the token is issued (docs/agents.md); the request may only name the
resource the approval covers (RFC 8707 2.2); the scopes are the approved ones still available
(grants.base.current_scopes); a refresh-token family starts when the client may refresh, under the
approval's grant id, so revoking the grant ends it too, and the person's consent for the client keeps that id
(withdrawing the consent ends the grant); then the shared tail (grants.base.issued),
with the ID token of the sign-in the approval recorded. The token's `sub` is the person's user_id,
as the sign-in recorded it; the records keep the username they were made under (`subject`), which
reads the person's record and goes into the token's `username`.
"""

from __future__ import annotations

from authgate.errors import ApiError
from authgate.oauth import rich_authorization
from authgate.oauth.clients import tenant_policy
from authgate.oauth.resource_indicator import granted_resource
from authgate.oauth.scopes import parse_scope
from authgate.oauth.token.grants.base import TokenRequest, TokenResult, current_scopes, issued
from authgate.single_use.authentication import Authentication
from authgate.stores.consents import ConsentStore
from authgate.stores.refresh_tokens import RefreshTokenStore
from authgate.stores.tenant_cache import get_tenant
from authgate.stores.users import UserStore


def approved_tokens(req: TokenRequest, *, tenant_id: str, subject: str, scope: str, resource: str | None,
                    grant_id: str, authentication: Authentication | None, nonce: str | None = None,
                    authorization_details: str | None = None) -> TokenResult:
    """The token response of an approval recorded with these values (the code's or the device code's record);
    `authorization_details` the approved ones (RFC 9396), which the token request may narrow (6.1, 6.2)."""
    client = req.client
    tenant = get_tenant(tenant_id)
    tenant_policy.check(client, tenant, grant=True)
    audience = granted_resource(resource, req.resource, req.issuer, tenant_id)
    scopes = current_scopes(parse_scope(scope), None, client, tenant, audience)
    details = rich_authorization.for_token(req.form.get(rich_authorization.PARAMETER), authorization_details,
                                           audience, tenant, req.issuer)
    user_id = user_id_of(tenant_id, subject, authentication)
    refresh_token = None
    if client.allows_grant("refresh_token"):
        refresh_token = RefreshTokenStore().start_family(
            family_id=grant_id, client_id=client.client_id, tenant_id=tenant_id, subject=subject, scope=scope,
            now=req.now,
            # RFC 9449 5.0: only a public client's refresh tokens are bound to its key.
            dpop_jkt=req.dpop_jkt if client.is_public else None, resource=resource, authentication=authentication,
            authorization_details=authorization_details,
            # The consent it is made under keeps its id: withdrawing the consent ends it (grants.consent).
            also=(ConsentStore().grant_write(tenant_id, user_id, client.client_id, grant_id),))
    return issued(req, subject=user_id, tenant=tenant_id, scopes=scopes,
                  audience=audience.resource, grant_id=grant_id, refresh_token=refresh_token,
                  authentication=authentication, nonce=nonce, authorization_details=details, username=subject)


def user_id_of(tenant_id: str, username: str, authentication: Authentication | None) -> str:
    """The person's user_id (OIDC Core 2 `sub`): the one the sign-in recorded; for a record written before sign-ins
    were recorded, the user's of that username now (one GetItem), and invalid_grant when there is none."""
    if authentication is not None and authentication.user_id:
        return authentication.user_id
    user = UserStore().get(tenant_id, username)
    if user is None or not user.user_id:
        raise ApiError("invalid_grant", "The user of this grant no longer exists.",
                       internal="record without a sign-in, user gone")
    return user.user_id
