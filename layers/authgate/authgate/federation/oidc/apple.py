"""Sign in with Apple's differences from OpenID Connect: its client secret is a JWT, its name comes once, in a form.

The client secret (Apple's "Creating a client secret"): an ES256 JWT signed with the private
key Apple issued for the Services ID (a PKCS #8 .p8 file, sealed in the record), header `kid`
the key's id, claims `iss` the team id, `sub` the client id (the Services ID), `aud`
https://appleid.apple.com, `iat`, and `exp` at most six months later; authgate signs a fresh one
for each token request, valid LIFETIME seconds. The person's name is in the `user` field of the
first form POST only (JSON: {"name": {"firstName", "lastName"}, "email"}); it is never in the ID
token. Apple's `email_verified` (and `is_private_email`) may be the strings "true"/"false".
"""

from __future__ import annotations

import json
from typing import Any

from authgate.tokens.jws import compact
from authgate.tokens.local_backend import LocalSigner

AUDIENCE = "https://appleid.apple.com"
ISSUER = "https://appleid.apple.com"
# Apple allows up to 15777000 s (six months); a secret made per request needs minutes.
LIFETIME = 300
MAX_USER_FIELD = 2048


def _private_key(pem: str) -> Any:
    """The .p8 key; ValueError (bad PEM) or TypeError (not EC P-256)."""
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    key = load_pem_private_key(pem.encode("ascii"), password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey) or not isinstance(key.curve, ec.SECP256R1):
        raise TypeError("Apple's key is an EC P-256 private key (ES256)")
    return key


def check_private_key(pem: str) -> None:
    """ValueError or TypeError unless `pem` is an EC P-256 private key in PEM (what Apple's .p8 download is)."""
    _private_key(pem)


def client_secret(*, team_id: str, key_id: str, client_id: str, private_key_pem: str, now: int) -> str:
    """The client secret JWT for one token request to Apple."""
    claims = {"iss": team_id, "iat": now, "exp": now + LIFETIME, "aud": AUDIENCE, "sub": client_id}
    return compact({"alg": "ES256", "kid": key_id}, claims, LocalSigner(key_id, "ES256", _private_key(private_key_pem)))


def user_name(user_field: str | None) -> str:
    """The name in the first form POST's `user` JSON ("" when absent or not what Apple sends)."""
    if not user_field or len(user_field) > MAX_USER_FIELD:
        return ""
    try:
        user: Any = json.loads(user_field)
    except ValueError:
        return ""
    name = user.get("name") if isinstance(user, dict) else None
    if not isinstance(name, dict):
        return ""
    parts = (name.get("firstName"), name.get("lastName"))
    return " ".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
