"""The resource owner password credentials grant (RFC 6749 §4.3).

Off unless the deployment sets AUTHGATE_PASSWORD_GRANT (RFC 9700 §2.4: MUST NOT be used);
while off it is unsupported_grant_type. Wrong, throttled or locked credentials look the same:
invalid_grant.
"""

from __future__ import annotations

from authgate.assurance import PASSWORD_AMR, password_sign_in
from authgate.audit import person
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
from authgate.stores.tenants import TenantStore
from authgate.stores.users import UserStore


class PasswordGrant(Grant):
    GRANT_TYPE = "password"

    def exchange(self, req: TokenRequest) -> TokenResult:
        username, password = req.param("username"), req.param("password")
        client = req.client
        requested = requested_scopes(req.form.get("scope"))
        tenant = TenantStore().get(client.tenant_id)
        resource = resolve(req.resource, req.issuer, client.tenant_id)
        scopes = check_scopes(requested, client, tenant, resource)
        result = UserStore().verify(client.tenant_id, username, password)
        person.attempted(client.tenant_id, username, result, client_id=client.client_id)
        if not result.ok:
            raise ApiError("invalid_grant", "The resource owner credentials are invalid.", internal=result.reason)
        if result.must_change_password:
            # An operator's reset forces a change that only the sign-in page can take (docs/users.md).
            raise ApiError("invalid_grant", "The password was reset: sign in on the authorization page to set a "
                                            "new one first.", internal="password change pending")
        # The password was checked just now: a sign-in with a password alone (RFC 9068 2.2.1).
        signed_in = password_sign_in(req.now)
        person.signed_in(client.tenant_id, result.user_id, result.subject, signed_in.acr, PASSWORD_AMR,
                         client.client_id)
        return issued(req, subject=result.user_id, tenant=client.tenant_id, scopes=scopes, audience=resource.resource,
                      acr=signed_in.acr, auth_time=signed_in.auth_time, username=result.subject)
