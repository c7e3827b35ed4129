"""An authorization code (RFC 6749 4.1.2, 10.5; RFC 9700 2.1.1): what it is bound to.

Only its SHA-256 is stored (stores.codes), for 60 s, and one exchange consumes it. `FIELDS` is
the one list of its attributes. Why an exchange fails is single_use.errors (CodeError: every
failure is invalid_grant; a second exchange carries the record, so the caller can revoke every
token its grant issued, RFC 6749 4.1.2).
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

from authgate import records
from authgate.records import Field
from authgate.single_use import authentication
from authgate.single_use.authentication import Authentication


class AuthorizationCode(NamedTuple):
    """A stored code: what it is bound to (client, redirect URI, PKCE challenge, scope, user)."""

    code_hash: str
    client_id: str
    tenant_id: str
    # Where the code was sent: as the authorization request named it, or the client's only
    # registered URI when it named none (None: an item written before this was recorded).
    redirect_uri: str | None
    code_challenge: str
    code_challenge_method: str
    scope: str
    subject: str
    # Ties every token issued from this code together, so a replay can revoke them all.
    grant_id: str
    state: str
    issued_at: int
    expires_at: int
    # Whether the authorization request included redirect_uri: then the token request must repeat
    # it; if not, it may omit it or name the same URI (RFC 6749 4.1.3).
    redirect_uri_sent: bool = True
    # RFC 9449 10: the DPoP key (thumbprint) the code must be redeemed with, when the request named one.
    dpop_jkt: str | None = None
    # RFC 8707 2: the resource the authorization request named (the token's audience), if any.
    resource: str | None = None
    # OpenID Connect: the request's nonce (OIDC Core 3.1.2.1), and the sign-in the ID token states.
    nonce: str | None = None
    # RFC 9396: the authorization_details the person approved, as canonical JSON (authorization_details.model.text).
    authorization_details: str | None = None
    authentication: Authentication | None = None


# A code's attributes, in `AuthorizationCode`'s order. Items written before an attribute existed
# read as its `missing` value (redirect_uri_sent: see from_item).
FIELDS = (
    Field("code_hash", "S", ""),
    Field("client_id", "S", ""),
    Field("tenant_id", "S", ""),
    Field("redirect_uri", "S", omit_none=True),
    Field("code_challenge", "S", ""),
    Field("code_challenge_method", "S", ""),
    Field("scope", "S", ""),
    Field("subject", "S", ""),
    Field("grant_id", "S", ""),
    Field("state", "S", ""),
    Field("issued_at", "N", 0),
    Field("expires_at", "N", 0),
    Field("redirect_uri_sent", "BOOL"),
    Field("dpop_jkt", "S", omit_empty=True),
    Field("resource", "S", omit_empty=True),
    Field("nonce", "S", omit_empty=True),
    Field("authorization_details", "S", omit_empty=True),
    *authentication.FIELDS,
)


def hash_code(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8")).hexdigest()


def to_item(code: AuthorizationCode) -> records.Item:
    """The code's DynamoDB item."""
    values = code._asdict()
    return records.to_item(FIELDS, {**values, **authentication.values(values.pop("authentication"))})


def from_item(item: records.Item) -> AuthorizationCode:
    """An AuthorizationCode from its DynamoDB item."""
    values = records.from_item(FIELDS, item)
    if values["redirect_uri_sent"] is None:
        # Written before redirect_uri_sent was recorded: a stored redirect_uri meant the request sent one.
        values["redirect_uri_sent"] = values["redirect_uri"] is not None
    signed_in = authentication.of(values)  # takes its fields out of `values`
    return AuthorizationCode(**values, authentication=signed_in)
