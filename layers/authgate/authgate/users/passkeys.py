"""A passkey (WebAuthn Level 3 public key credential) a user enrolled, and what signing in with one proves.

`FIELDS` is the item of PasskeysTable (stores.passkeys), keyed by the credential id with an index by
user. The relying party id is the issuer's host (WebAuthn 5.1.3: a registrable domain or a host;
browsers refuse IP addresses, so an issuer on 127.0.0.1 cannot use passkeys: serve it as localhost).
"""

from __future__ import annotations

import ipaddress
from typing import NamedTuple
from urllib.parse import urlsplit

from authgate.assurance import passkey_methods
from authgate.records import Field
from authgate.users.errors import RelyingPartyUnusable


class Passkey(NamedTuple):
    """One enrolled credential: its id and public key (COSE, RFC 9053), its counter and flags, its owner."""

    credential_id: str  # base64url, as the browser reports it
    tenant_id: str
    username: str
    public_key: str  # base64url of the COSE_Key
    sign_count: int
    name: str
    created_at: int
    last_used_at: int = 0
    # WebAuthn 6.1.3: BE (may be synced to other devices) and BS (is backed up now).
    backup_eligible: bool = False
    backed_up: bool = False
    transports: tuple[str, ...] = ()
    aaguid: str = ""

    @property
    def user_key(self) -> str:
        """The index key of the owner's passkeys."""
        return user_key(self.tenant_id, self.username)


FIELDS = (
    Field("credential_id", "S"),
    Field("tenant_id", "S"),
    Field("username", "S"),
    Field("public_key", "S", public=False),
    Field("sign_count", "N", 0),
    Field("name", "S", ""),
    Field("created_at", "N", 0),
    Field("last_used_at", "N", 0, omit_empty=True),
    Field("backup_eligible", "BOOL", False),
    Field("backed_up", "BOOL", False),
    Field("transports", "STRINGS", (), omit_empty=True),
    Field("aaguid", "S", "", omit_empty=True),
)


def user_key(tenant_id: str, username: str) -> str:
    return f"{tenant_id}#{username}"


def relying_party_id(issuer: str) -> str:
    """The RP id for an issuer URL: its host (WebAuthn 5.1.3); RelyingPartyUnusable for an IP address."""
    host = urlsplit(issuer).hostname or ""
    if not host:
        raise RelyingPartyUnusable(f"the issuer {issuer!r} has no host to use as the passkeys' relying party id")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return host
    raise RelyingPartyUnusable(
        f"passkeys need a host name, and the issuer's host is the IP address {host}: browsers refuse IP addresses "
        "as WebAuthn relying party ids (serve the stack as http://localhost:PORT, or a domain)")


def amr_of(passkey: Passkey, user_verified: bool) -> tuple[str, ...]:
    """RFC 8176 2 values of a sign-in with this passkey (assurance.passkey_methods: synced if backup-eligible)."""
    return passkey_methods(passkey.backup_eligible, user_verified)
