"""Inputs an attacker crafts, shared by the tests that send them through the real handlers.

IDENTITY and FORGED: an Ed25519 public key of small order and a signature it accepts for every
message. RFC 8032 5.1.7 verifies [8][S]B = [8]R + [8][k]A; with A the identity point (y = 1,
encoded as 1 then 31 zero octets), R the identity and S = 0 this holds for any message, and
OpenSSL's Ed25519 (what `cryptography` calls) accepts it. authgate refuses such keys wherever a
client supplies one (a DPoP proof's jwk, a registered JWKS).

DEEP: JSON nested past the parser's recursion limit (1000), within the size limits.
"""

from __future__ import annotations

# The identity point (y = 1): R = identity, S = 0 is a valid signature of every message under it.
IDENTITY = bytes([1]) + bytes(31)
FORGED = IDENTITY + bytes(32)

DEEP = "[" * 1100 + "]" * 1100
