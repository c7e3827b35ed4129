"""A backchannel authentication request (OpenID Connect CIBA Core 1.0 sections 7.1, 7.3, 10, 11): who is asked,
by which client, for what, and where it stands.

Only SHA-256 of its auth_req_id is stored (the key `ciba#` + hex, a kind of item in CodesTable, as pushed
requests are `par#`): the request lives minutes, is redeemed once and expires by TTL like a code.
A request for an unknown user is stored the same way with an empty `user_id`: it can never be
approved and simply expires (CIBA 13 unknown_user_id is never answered, docs/ciba.md).
Its `authorization_details` (RFC 9396 2) are the checked details' canonical JSON text, as a code keeps them.
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

from authgate import records
from authgate.grant_types import CIBA
from authgate.records import Field

# CIBA Core 10.1: the grant type of the token request that polls.
GRANT_TYPE = CIBA
KEY_PREFIX = "ciba#"
# The approval link's item: `ciba-link#` + SHA-256 of the link's secret, naming the request's key.
LINK_PREFIX = "ciba-link#"


class BackchannelRequest(NamedTuple):
    """A stored request (CIBA 7.1) and its state: pending, then approved or denied, then redeemed."""

    key: str
    client_id: str
    tenant_id: str
    # The user the hint named ("" when it named nobody the tenant knows: never approvable), and
    # their username (known from a login_hint; from an id_token_hint, set by the approval).
    user_id: str
    username: str
    scope: str
    binding_message: str
    state: str
    issued_at: int
    expires_at: int
    interval: int
    # The earliest time of the client's next poll: one interval after its last poll, passed or slowed down (CIBA 11;
    # authgate.polling).
    next_poll_at: int = 0
    resource: str = ""
    grant_id: str = ""
    # The approval's sign-in (OIDC Core 2 auth_time, acr, amr), set when approved.
    auth_time: int = 0
    acr: str = ""
    amr: tuple[str, ...] = ()
    # The user's session_generation at the approval (users.model.User.admits), for its refresh tokens.
    generation: int = 0
    # RFC 9396 authorization_details the request asks for: their canonical JSON (authorization_details.model.text).
    authorization_details: str | None = None


FIELDS = (
    Field("code_hash", "S", ""),
    Field("client_id", "S", ""),
    Field("tenant_id", "S", ""),
    Field("user_id", "S", ""),
    Field("username", "S", ""),
    Field("scope", "S", ""),
    Field("binding_message", "S", "", omit_empty=True),
    Field("state", "S", ""),
    Field("issued_at", "N", 0),
    Field("expires_at", "N", 0),
    Field("interval", "N", 0),
    Field("next_poll_at", "N", 0),
    Field("resource", "S", "", omit_empty=True),
    Field("grant_id", "S", ""),
    Field("auth_time", "N", 0, omit_empty=True),
    Field("acr", "S", "", omit_empty=True),
    Field("amr", "STRINGS", (), omit_empty=True),
    Field("generation", "N", 0, omit_empty=True),
    Field("authorization_details", "S", omit_empty=True),
)


def key_of(auth_req_id: str) -> str:
    """The stored key of an auth_req_id: never the identifier itself."""
    return KEY_PREFIX + hashlib.sha256(auth_req_id.encode("utf-8")).hexdigest()


def link_key_of(link: str) -> str:
    """The stored key of an approval link's secret: never the secret itself."""
    return LINK_PREFIX + hashlib.sha256(link.encode("utf-8")).hexdigest()


def to_item(request: BackchannelRequest) -> records.Item:
    values = request._asdict()
    values["code_hash"] = values.pop("key")
    return records.to_item(FIELDS, values)


def from_item(item: records.Item) -> BackchannelRequest:
    values = records.from_item(FIELDS, item)
    values["key"] = values.pop("code_hash")
    return BackchannelRequest(**values)
