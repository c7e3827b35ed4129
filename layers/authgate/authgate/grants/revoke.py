"""Revoking a grant: every access token and refresh token issued from one code or family.

Used when a code is exchanged twice (RFC 6749 §4.1.2, §10.5), when a rotated refresh token is
replayed (RFC 9700 §4.14.2), and when a refresh token is revoked (RFC 7009 §2.1: revoking a
refresh token SHOULD also revoke the access tokens of the same grant).
"""

from __future__ import annotations

from authgate import audit
from authgate.logs import get_logger
from authgate.settings import get_settings
from authgate.stores.refresh_tokens import RefreshTokenStore
from authgate.stores.revocations import RevocationStore


def revoke_grant(grant_id: str, now: int, reason: str, *, code: str = "", tenant: str = "",
                 client_id: str = "") -> None:
    """Revoke the grant's access tokens (guard checks `grant_id`) and its refresh family.

    With a reason `code`, the revocation is recorded (token.revoked, docs/audit.md): by the client when its
    id is given (it revoked, or presented a used credential), else by authgate."""
    settings = get_settings()
    # Long enough to outlive every access token of the grant, with the validator's leeway.
    access_horizon = now + settings.access_token_ttl + settings.leeway
    RevocationStore().revoke_grant(grant_id, access_horizon)
    RefreshTokenStore().revoke_family(grant_id, now + settings.refresh_token_ttl)
    get_logger().warning("grant revoked", extra={"grant_id": grant_id, "reason": reason})
    if code:
        audit.record("token.revoked", tenant, actor=audit.client(client_id) if client_id else audit.SYSTEM,
                     target=audit.Party("token", grant_id), reason=code,
                     details={"kind": "grant", "client_id": client_id})
