"""The CIBA grant's token request (OpenID Connect CIBA Core 1.0 10.1, 10.2, 11): the client polls with its auth_req_id.

One conditional write per poll (stores.backchannel_requests): pending is authorization_pending,
sooner than the interval slow_down (the interval then grows by 5 s), past expiry expired_token,
denied access_denied, another client's, unknown or already redeemed invalid_grant. Approved, the
request is redeemed once and answered as a code exchange would be (10.2): an access token with
the approval's `acr` (mfa) and `auth_time`, an ID token (the scope has openid), a refresh token
when the client is allowed the refresh_token grant. The approved `authorization_details` (RFC 9396)
go into the access token and the refresh family and are echoed (7); the poll may narrow them (6.2).
"""

from __future__ import annotations

from authgate.approvals.backchannel_request import GRANT_TYPE
from authgate.oauth import rich_authorization
from authgate.oauth.clients import tenant_policy
from authgate.oauth.resource_indicator import granted_resource
from authgate.oauth.scopes import parse_scope
from authgate.oauth.token.grants.base import (
    Grant,
    TokenRequest,
    TokenResult,
    current_scopes,
    issued,
)
from authgate.single_use.authentication import Authentication
from authgate.stores.backchannel_requests import BackchannelRequestStore
from authgate.stores.refresh_tokens import RefreshTokenStore
from authgate.stores.tenant_cache import get_tenant


class CibaGrant(Grant):
    GRANT_TYPE = GRANT_TYPE
    TAKES_DETAILS = True

    def exchange(self, req: TokenRequest) -> TokenResult:
        auth_req_id = req.param("auth_req_id")
        client = req.client
        request = BackchannelRequestStore().poll(auth_req_id, client.client_id)
        tenant = get_tenant(request.tenant_id)
        tenant_policy.check(client, tenant, grant=True)
        resource = granted_resource(request.resource or None, req.resource, req.issuer, request.tenant_id)
        scopes = current_scopes(parse_scope(request.scope), None, client, tenant, resource)
        details = rich_authorization.for_token(req.form.get(rich_authorization.PARAMETER),
                                               request.authorization_details, resource, tenant, req.issuer)
        authentication = Authentication(request.user_id, request.auth_time, request.acr, request.amr,
                                        generation=request.generation)
        refresh_token = None
        if client.allows_grant("refresh_token"):
            refresh_token = RefreshTokenStore().start_family(
                family_id=request.grant_id, client_id=client.client_id, tenant_id=request.tenant_id,
                subject=request.username, scope=request.scope, now=req.now, dpop_jkt=None,
                resource=request.resource or None, authentication=authentication,
                authorization_details=request.authorization_details)
        return issued(req, subject=request.user_id, tenant=request.tenant_id, scopes=scopes,
                      audience=resource.resource, grant_id=request.grant_id, refresh_token=refresh_token,
                      authentication=authentication, authorization_details=details, username=request.username)
