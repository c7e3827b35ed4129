"""POST /oauth/revoke (RFC 7009): client-authenticated revocation of access and refresh tokens.

An unknown, invalid or already-revoked token is answered 200 (§2.2). An access token is
verified (signature, issuer, expiry) before its `jti` is revoked; a refresh token revokes its
whole family and the access tokens of the same grant (§2.1). `token_type_hint` only orders
the look-ups; an unknown hint is ignored (§2.1: the server MAY ignore it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate import audit, clock
from authgate.errors import ApiError
from authgate.grants.revoke import revoke_grant
from authgate.http.response import NO_STORE, Response
from authgate.issuer import base_url
from authgate.oauth.token import client_auth
from authgate.oauth.token.form import read_form
from authgate.settings import get_settings
from authgate.stores.refresh_tokens import RefreshTokenStore
from authgate.stores.revocations import RevocationStore
from authgate.tokens.guard import active_access_token

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.http.request import Request


def _not_yours() -> ApiError:
    # RFC 7009 2.1: a token issued to another client is refused, not revoked.
    return ApiError("unauthorized_client", "The token was not issued to this client.")


def _revoke_access(token: str, client: Client, issuer: str) -> bool:
    principal = active_access_token(token, issuer=issuer)
    if principal is None:
        return False  # not a JWT, expired, revoked, forged: nothing left to revoke
    if principal.client_id != client.client_id:
        raise _not_yours()
    RevocationStore().revoke_jti(principal.jti, principal.expires_at + get_settings().leeway)
    audit.record("token.revoked", principal.tenant, actor=audit.client(client.client_id),
                 target=audit.Party("token", principal.jti), reason="revoked_by_client",
                 details={"kind": "access_token", "client_id": client.client_id, "subject": principal.subject})
    return True


def _revoke_refresh(token: str, client: Client, now: int) -> bool:
    if "." in token:
        return False
    record = RefreshTokenStore().get(token)
    if record is None:
        return False
    if record.client_id != client.client_id:
        raise _not_yours()
    if record.state != "revoked":
        revoke_grant(record.family_id, now, "refresh token revoked by its client", code="revoked_by_client",
                     tenant=record.tenant_id, client_id=client.client_id)
    return True


def post_revoke(request: Request) -> Response:
    form = read_form(request)
    client = client_auth.authenticate(request, form)
    token = form.get("token")
    if token is None:
        raise ApiError("invalid_request", "The token parameter is required (RFC 7009 2.1).")
    issuer, now = base_url(request), clock.seconds()
    if form.get("token_type_hint") == "refresh_token":
        _revoke_refresh(token, client, now) or _revoke_access(token, client, issuer)
    else:
        _revoke_access(token, client, issuer) or _revoke_refresh(token, client, now)
    return Response.json(200, {}, headers=NO_STORE)
