"""A device authorization (RFC 8628 3.1-3.5): its device code, its user code, and the person's decision.

User codes are 10 characters of the RFC's base-20 consonant alphabet (6.1: no vowels, so no words;
20^10 is about 2^43.2: the verification page limits guesses per host and per network, never for
the whole deployment, so the code space itself keeps a many-network guesser hopeless, docs/delegation.md),
shown as XXXXX-XXXXX and compared case- and dash-insensitively (6.1: "the
characters in the alphabet are case insensitive" once normalised). The record is kept under
`device#` + SHA-256 of the normalised user code (CodesTable, beside the codes: stores.device_codes),
so the verification page finds it with one GetItem. The device code is `<normalised user code>.<256
random bits>`: the token endpoint finds the same item from it, and only the SHA-256 of the random
part is stored, so the device code is as strong as any other grant and the item says nothing that
redeems it. `FIELDS` is the one list of its attributes.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import NamedTuple

from authgate import records
from authgate.grant_types import DEVICE_CODE
from authgate.records import Field
from authgate.single_use import authentication
from authgate.single_use.authentication import Authentication

GRANT_TYPE = DEVICE_CODE
# RFC 8628 6.1: the recommended alphabet, 10 characters, shown as two groups of five.
ALPHABET = "BCDFGHJKLMNPQRSTVWXZ"
LENGTH = 10
# RFC 8628 3.2: how long the codes live and how long the device waits between polls (3.5: slow_down adds to it,
# authgate.polling).
LIFETIME = 600
INTERVAL = 5
_ITEM_PREFIX = "device#"


class DeviceAuthorization(NamedTuple):
    """A device authorization request and, once the person decided, who approved it."""

    code_hash: str
    device_hash: str
    client_id: str
    tenant_id: str
    scope: str
    state: str
    # Seconds the device must wait between polls, raised by slow_down (RFC 8628 3.5), and when it may poll next.
    interval: int
    next_poll_at: int
    issued_at: int
    expires_at: int
    resource: str | None = None
    # Whether the client was a public one (RFC 6749 2.1): only its polls are answered before client authentication.
    public_client: bool = False
    # Set on approval: the person (their username, as codes record it), the grant and the sign-in.
    subject: str = ""
    grant_id: str = ""
    authentication: Authentication | None = None


# What an approval adds: the person, the grant and the sign-in (stores.device_codes writes these alone).
APPROVAL_FIELDS = (
    Field("subject", "S", "", omit_empty=True),
    Field("grant_id", "S", "", omit_empty=True),
    *authentication.FIELDS,
)
FIELDS = (
    Field("code_hash", "S", ""),
    Field("device_hash", "S", ""),
    Field("client_id", "S", ""),
    Field("tenant_id", "S", ""),
    Field("scope", "S", ""),
    Field("state", "S", ""),
    Field("interval", "N", INTERVAL),
    Field("next_poll_at", "N", 0),
    Field("issued_at", "N", 0),
    Field("expires_at", "N", 0),
    Field("resource", "S", omit_empty=True),
    Field("public_client", "BOOL", False, omit_empty=True),
    *APPROVAL_FIELDS,
)


def new_user_code() -> str:
    """A fresh user code, normalised (LENGTH characters of ALPHABET, from the system's CSPRNG)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def shown(user_code: str) -> str:
    """A normalised user code as people see it: XXXXX-XXXXX (RFC 8628 6.1)."""
    half = LENGTH // 2
    return f"{user_code[:half]}-{user_code[half:]}"


def normalised(typed: str) -> str | None:
    """What a person typed, upper-cased without dashes and spaces; None unless it can be a user code."""
    code = "".join(c for c in typed[:32].upper() if c not in "- ")
    return code if len(code) == LENGTH and all(c in ALPHABET for c in code) else None


def item_id(user_code: str) -> str:
    """The CodesTable key of the record of a normalised user code."""
    return _ITEM_PREFIX + hashlib.sha256(user_code.encode("ascii")).hexdigest()


def new_device_code(user_code: str) -> tuple[str, str]:
    """(device code, SHA-256 of its secret part) for a normalised user code."""
    secret = secrets.token_urlsafe(32)
    return f"{user_code}.{secret}", secret_hash(secret)


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogateescape")).hexdigest()


def parts(device_code: str) -> tuple[str, str] | None:
    """(normalised user code, secret hash) of a device code as the token endpoint got it; None if malformed."""
    user_code, dot, secret = device_code.partition(".")
    if not dot or normalised(user_code) != user_code or not 0 < len(secret) <= 64:
        return None
    return user_code, secret_hash(secret)


def to_item(record: DeviceAuthorization) -> records.Item:
    values = record._asdict()
    return records.to_item(FIELDS, {**values, **authentication.values(values.pop("authentication"))})


def from_item(item: records.Item) -> DeviceAuthorization:
    values = records.from_item(FIELDS, item)
    signed_in = authentication.of(values)
    return DeviceAuthorization(**values, authentication=signed_in)
