"""A refresh token of a family (RFC 6749 6; RFC 9700 4.14.2 rotation and reuse detection; a failed one: single_use.errors).

Only its SHA-256 is stored (stores.refresh_tokens). `FIELDS` is the one list of a token's
attributes; a family head shares the table (state active | revoked).
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

from authgate.records import Field
from authgate.single_use import authentication
from authgate.single_use.authentication import Authentication


class RefreshToken(NamedTuple):
    token_hash: str
    family_id: str
    client_id: str
    tenant_id: str
    subject: str
    scope: str
    state: str
    expires_at: int
    issued_at: int
    rotated_to: str | None = None
    # RFC 9449 5.0: a public client's family is bound to the key (thumbprint) of its first proof.
    dpop_jkt: str | None = None
    # RFC 8707 2.2: the resource the grant is for (None: the charges API); every token of the
    # family is for it.
    resource: str | None = None
    # RFC 9396: the grant's authorization_details as canonical JSON; every token of the family keeps them.
    authorization_details: str | None = None
    # OpenID Connect: the sign-in of a grant with scope openid, which each refresh's ID token states
    # again (OIDC Core 12.2).
    authentication: Authentication | None = None


# A token's attributes, in `RefreshToken`'s order; items written before tenant_id, subject, scope
# and issued_at were recorded read them as empty. rotated_to is set by the rotation itself.
FIELDS = (
    Field("token_hash", "S"),
    Field("family_id", "S"),
    Field("client_id", "S"),
    Field("tenant_id", "S", ""),
    Field("subject", "S", ""),
    Field("scope", "S", ""),
    Field("state", "S"),
    Field("expires_at", "N"),
    Field("issued_at", "N", 0),
    Field("rotated_to", "S", omit_empty=True),
    Field("dpop_jkt", "S", omit_empty=True),
    Field("resource", "S", omit_empty=True),
    Field("authorization_details", "S", omit_empty=True),
    *authentication.FIELDS,
)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()
