"""A person's identity at one of the tenant's identity providers, linked to their account.

The person upstream is (tenant, the IdP's issuer, the upstream subject: an OpenID Connect `sub`, or a
SAML NameID with its Format), never an email alone: an email changes hands, and an IdP may assert
one nobody verified. A link names the user by `user_id` (stable, never reused) and by `username`
(the UsersTable key that reads it); a link whose user_id is not its user's any more (the user was
deleted, or replaced under the same username) counts for nothing. `via` says how the link was made.
`FIELDS` is the item of LinkedIdentitiesTable (stores.linked_identities), keyed by the tenant and
`identity_key(issuer, subject)`, with an index by user_id.
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

from authgate.base64url import encode
from authgate.records import Field

# Longest issuer and subject looked up (an IdP record's issuer is at most 500; OpenID Connect Core 2 caps
# `sub` at 255 ASCII characters; a SAML NameID with its Format is longer): a longer one is never linked.
MAX_ISSUER = 500
MAX_SUBJECT = 1024



class LinkedIdentity(NamedTuple):
    """One upstream identity and the account it signs in as."""

    tenant_id: str
    issuer: str
    subject: str
    user_id: str
    username: str
    linked_at: int
    # How it was made: "provisioned" (an account created for the person just in time), "verified_email" (an IdP
    # trusted for verified emails said the account's own verified email is theirs), or "proof" (the person proved
    # the account with its password or passkey in the same browser).
    via: str = ""


FIELDS = (
    Field("tenant_id", "S"),
    Field("issuer", "S"),
    Field("subject", "S"),
    Field("user_id", "S"),
    Field("username", "S"),
    Field("linked_at", "N", 0),
    Field("via", "S", "", omit_empty=True),
)


def identity_key(issuer: str, subject: str) -> str:
    """The item's key within its tenant: base64url(SHA-256(issuer NUL subject)), one length whatever theirs (a
    DynamoDB sort key holds 1024 bytes), and unambiguous (an issuer holds no NUL)."""
    return encode(hashlib.sha256(f"{issuer}\0{subject}".encode("utf-8", "surrogatepass")).digest())


def linkable(issuer: str, subject: str) -> bool:
    """Whether an upstream identity can be linked at all: both parts present, neither longer than their bound."""
    return bool(issuer) and bool(subject) and len(issuer) <= MAX_ISSUER and len(subject) <= MAX_SUBJECT
