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
    # The sign-in that made the grant (users.assurance; OIDC Core 2 auth_time, acr, amr): None, "" and ()
    # on an item written before they were recorded (its tokens then carry no acr: never enough for
    # strong authentication).
    auth_time: int | None = None
    acr: str = ""
    amr: tuple[str, ...] = ()


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
    Field("auth_time", "N", omit_none=True),
    Field("acr", "S", "", omit_empty=True),
    Field("amr", "STRINGS", (), omit_empty=True),
)


def hash_code(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8")).hexdigest()


def to_item(code: AuthorizationCode) -> records.Item:
    """The code's DynamoDB item."""
    return records.to_item(FIELDS, code._asdict())


def from_item(item: records.Item) -> AuthorizationCode:
    """An AuthorizationCode from its DynamoDB item."""
    values = records.from_item(FIELDS, item)
    if values["redirect_uri_sent"] is None:
        # Written before redirect_uri_sent was recorded: a stored redirect_uri meant the request sent one.
        values["redirect_uri_sent"] = values["redirect_uri"] is not None
    return AuthorizationCode(**values)
