"""A pushed authorization request (RFC 9126 2.1, 2.2, 4): its parameters, one-time use by the client that pushed it.

`FIELDS` is the one list of its stored attributes (stores.pushed_requests): the key (`par#` +
SHA-256 of the request_uri), the client, its state, the parameters as JSON, issued_at and
expires_at. Every failure is invalid_request_uri at the authorization endpoint; `refusal` says
which rule (single_use.errors).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from authgate.records import Field
from authgate.single_use.errors import (
    PushedRequestError,
    PushedRequestExpired,
    PushedRequestNotFound,
    PushedRequestOfAnotherClient,
    PushedRequestUsed,
)

URN_PREFIX = "urn:ietf:params:oauth:request_uri:"
LIFETIME = 60


class PushedRequest(NamedTuple):
    """The authorization request parameters a client pushed (RFC 9126 2.1), by name."""

    client_id: str
    params: dict[str, list[str]]
    expires_at: int


FIELDS = (
    Field("code_hash", "S"),
    Field("client_id", "S", ""),
    Field("state", "S", ""),
    Field("params", "JSON"),
    Field("issued_at", "N", 0),
    Field("expires_at", "N", 0),
)


def refusal(stored: dict[str, Any] | None, client_id: str) -> PushedRequestError:
    """Why a use by `client_id` was refused, from the stored values as they were (None: no such request)."""
    if not stored or stored["params"] is None:
        return PushedRequestNotFound()
    if stored["client_id"] != client_id:
        return PushedRequestOfAnotherClient()
    if stored["state"] != "pushed":
        return PushedRequestUsed()
    return PushedRequestExpired()
