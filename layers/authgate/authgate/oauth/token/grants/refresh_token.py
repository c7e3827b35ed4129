"""The refresh token grant (RFC 6749 §6) with rotation and reuse detection (RFC 9700 §4.14.2).

Every use rotates the token. Presenting a token that was already rotated (a replay, or the
loser of two concurrent refreshes) is invalid_grant and revokes the whole family, including
its access tokens. The scope may only narrow; the new refresh token keeps the original scope
(RFC 6749 §6) and the family's original expiry.

A fapi2 client's token is not rotated (FAPI 2.0 Security Profile 5.3.2.1 item 9,
authgate.oauth.clients.profile.rotates_refresh_tokens): it stays valid until its family expires
or is revoked, and the response returns the same token.
"""

from __future__ import annotations

from authgate.errors import ApiError
from authgate.failures import as_api_error
from authgate.grants.revoke import revoke_grant
from authgate.oauth import rich_authorization
from authgate.oauth.clients import tenant_policy
from authgate.oauth.clients.profile import rotates_refresh_tokens
from authgate.oauth.resource_indicator import granted_resource
from authgate.oauth.scopes import parse_scope
from authgate.oauth.token.grants.base import (
    Grant,
    TokenRequest,
    TokenResult,
    check_key_binding,
    current_scopes,
    issued,
    requested_scopes,
)
from authgate.single_use.errors import RotationFailed
from authgate.single_use.refresh_tokens import RefreshToken
from authgate.stores.refresh_tokens import RefreshTokenStore
from authgate.stores.tenant_cache import get_tenant
from authgate.stores.users import UserStore
from authgate.users.model import User


class RefreshTokenGrant(Grant):
    GRANT_TYPE = "refresh_token"
    TAKES_DETAILS = True

    def exchange(self, req: TokenRequest) -> TokenResult:
        presented = req.param("refresh_token")
        requested = requested_scopes(req.form.get("scope"))
        store = RefreshTokenStore()
        record = store.get(presented)
        if record is None:
            raise ApiError("invalid_grant", "The refresh token is invalid.", internal="unknown refresh token")
        if record.client_id != req.client.client_id:
            raise ApiError("invalid_grant", "The refresh token was issued to another client.",
                           internal=f"refresh token of {record.client_id!r}")
        if record.expires_at <= req.now:
            raise ApiError("invalid_grant", "The refresh token has expired.")
        if record.state == "rotated":
            revoke_grant(record.family_id, req.now, "rotated refresh token replayed", code="refresh_token_replayed",
                         tenant=record.tenant_id, client_id=record.client_id)
            raise ApiError("invalid_grant", "The refresh token has already been used; its grant is revoked.")
        if record.state != "active":
            raise ApiError("invalid_grant", "The refresh token has been revoked.")
        check_key_binding(record.dpop_jkt, req.dpop_jkt, "refresh token")
        owner = _owner_still_admits(record, req.now)
        # The tenant's switches hold for grants made before they changed (docs/agents.md): its policy on a
        # self-registered client, its forbidden scopes. Warm-cached for 60 s.
        tenant = get_tenant(record.tenant_id)
        tenant_policy.check(req.client, tenant, grant=True)
        # RFC 8707 2.2: the grant's resource, named again or not; still registered and open to the tenant.
        resource = granted_resource(record.resource, req.resource, req.issuer, record.tenant_id)
        granted = current_scopes(parse_scope(record.scope), requested, req.client, tenant, resource)
        # RFC 9396 6.1, 6.2: the family keeps the approved details; a refresh may narrow them, never widen.
        details = rich_authorization.for_token(req.form.get(rich_authorization.PARAMETER),
                                               record.authorization_details, resource, tenant, req.issuer)
        if rotates_refresh_tokens(req.client):
            try:
                new_token = store.rotate(record, req.now)
            except RotationFailed as failed:
                if failed.reused:
                    # Lost a race with another use of the same token: that is reuse too.
                    revoke_grant(record.family_id, req.now, "concurrent refresh token reuse",
                                 code="refresh_token_replayed", tenant=record.tenant_id, client_id=record.client_id)
                raise as_api_error(failed) from failed
        else:
            # FAPI 2.0 5.3.2.1 item 9: no rotation. A revocation marks the family, so its state is
            # read here, as the rotation's transaction checks it.
            if not store.family_active(record.family_id):
                raise ApiError("invalid_grant", "The refresh token has been revoked.")
            new_token = presented
        # The person's stable user_id as `sub`, also for a family started when tokens carried the username.
        return issued(req, subject=owner.user_id, tenant=record.tenant_id, scopes=granted, audience=resource.resource,
                      grant_id=record.family_id, refresh_token=new_token, authentication=record.authentication,
                      authorization_details=details, username=record.subject)



def _owner_still_admits(record: RefreshToken, now: int) -> User:
    """The user the grant is for, who still exists, is enabled, and has not ended its sessions since this token was
    issued (`sessions_valid_after`: disable, password reset or change); otherwise the grant is revoked
    (its family and access tokens) and the refresh is invalid_grant (RFC 6749 5.2). One GetItem."""
    user = UserStore().get(record.tenant_id, record.subject)
    signed_in = record.authentication
    if user is not None and user.user_id and (
            user.admits(signed_in.user_id, signed_in.generation, record.issued_at)
            if signed_in is not None else user.issued_in_time(record.issued_at)):
        return user
    revoke_grant(record.family_id, now, "the user was deleted, disabled or ended its sessions",
                 code="user_sessions_ended", tenant=record.tenant_id)
    raise ApiError("invalid_grant", "The refresh token has been revoked.",
                   internal="user gone, disabled or sessions ended" if user is None or user.disabled
                   else "issued before the user's sessions_valid_after")
