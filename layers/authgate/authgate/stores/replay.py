"""ReplayTable: single-use ids (DPoP proof `jti`, RFC 9449 11.1; client assertion `jti`, RFC 7523 3 item 7; a SAML
assertion's ID, SAML Profiles 4.1.4.5).

One conditional PutItem decides: the first writer of an id wins, every later one within the
id's window learns `Replayed` (authgate.single_use.errors). DynamoDB deletes expired items by
TTL only eventually (and moto never), so an item whose `expires_at` has passed no longer counts:
the condition lets a write replace it. Ids are namespaced by what they guard, so a proof and an
assertion never collide: `dpop#<jkt>#<jti>`, `assertion#<client_id>#<jti>`, `id-jag#<iss>#<jti>`,
`upstream-logout#<iss>#<jti>`, `saml#<entity_id>#<assertion ID>`. Only a SHA-256 of the id is
stored, so the table holds nothing a client chose verbatim and every key has the same size.
"""

from __future__ import annotations

import hashlib

from authgate import clock, records
from authgate.records import Field, n
from authgate.single_use.errors import Replayed
from authgate.stores.base import TableStore

FIELDS = (Field("id", "S"), Field("expires_at", "N", 0))


def dpop_key(jkt: str, jti: str) -> str:
    """The ReplayTable id of a DPoP proof: its key's thumbprint and its `jti` (RFC 9449 11.1)."""
    return f"dpop#{jkt}#{jti}"


def assertion_key(client_id: str, jti: str) -> str:
    """The ReplayTable id of a client assertion: its issuer (the client) and its `jti` (RFC 7523 3)."""
    return f"assertion#{client_id}#{jti}"


def id_jag_key(issuer: str, jti: str) -> str:
    """The ReplayTable id of an ID-JAG: its IdP and its `jti` (RFC 7523 3 item 7; the IdP makes jti unique)."""
    return f"id-jag#{issuer}#{jti}"


def upstream_logout_key(issuer: str, jti: str) -> str:
    """The ReplayTable id of an upstream IdP's logout token: its issuer and its `jti` (Back-Channel Logout 1.0 2.6)."""
    return f"upstream-logout#{issuer}#{jti}"


def saml_assertion_key(entity_id: str, assertion_id: str) -> str:
    """The ReplayTable id of a SAML assertion: its IdP and its ID (SAML Profiles 4.1.4.5: each used once)."""
    return f"saml#{entity_id}#{assertion_id}"


class ReplayGuard(TableStore):
    """Remembers each id until it expires; `use` raises `Replayed` for an id seen before."""

    table_setting = "replay"

    def use(self, key: str, expires_at: int, *, now: int | None = None) -> None:
        """Record `key` as used until `expires_at` (epoch seconds); raise `Replayed` if it is in use.

        `now` is the time the caller judged the proof or assertion by: an item still counts at
        that moment even when the write happens a second later.
        """
        if now is None:
            now = clock.seconds()
        item = records.to_item(FIELDS, {"id": hashlib.sha256(key.encode("utf-8")).hexdigest(),
                                        "expires_at": max(expires_at, now + 1)})
        # An expired item is as good as absent (TTL deletes it eventually).
        self.upsert(item, "use", condition="attribute_not_exists(id) OR expires_at <= :now",
                    values={":now": n(now)}, refused=lambda: Replayed(key))
