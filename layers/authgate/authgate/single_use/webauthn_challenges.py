"""A WebAuthn ceremony's challenge (WebAuthn Level 3 13.4.3): random, single use, short-lived, bound to its caller.

Kept in CodesTable (stores.webauthn_challenges) under `webauthn#` + SHA-256 of the challenge, as
pushed requests are under `par#`. `binding` is what the caller ties the ceremony to (the sign-in
session's id once sessions exist); only its SHA-256 is stored. `purpose` keeps a registration's
challenge from being spent on a sign-in and the other way round, and an account page's confirmation
(`confirm`: a passkey proving the person before a change of factors) from being spent on either.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from authgate.records import Field

Purpose = Literal["register", "authenticate", "confirm"]
# WebAuthn 5.4, 5.5 `timeout`: how long the browser waits, and how long the challenge lives here.
LIFETIME = 300


class Challenge(NamedTuple):
    """A consumed challenge: who the ceremony is for (the tenant, and the user for a registration or a
    second-factor sign-in; empty for a username-less one)."""

    challenge: bytes
    purpose: Purpose
    tenant_id: str
    username: str


class ChallengeRefused(Exception):
    """Unknown, used, expired, of another purpose, or bound to another caller: all the same to a client."""


FIELDS = (
    Field("code_hash", "S"),
    Field("state", "S"),
    Field("purpose", "S"),
    Field("binding_hash", "S", public=False),
    Field("tenant_id", "S", ""),
    Field("username", "S", "", omit_empty=True),
    Field("issued_at", "N", 0),
    Field("expires_at", "N", 0),
)
