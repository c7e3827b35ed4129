"""The published JWK Set (RFC 7517 section 5): the next, current and previous keys (served by functions/jwks).

Stays lean (the jwks function's cold start budget is 1.1x `import boto3`): public JWKs are
read from the keys table as stored JSON; no jwt/cryptography import on this path.
Cache-Control max-age is `jwks_max_age`, the figure the overlap rule is built on: a key is
published jwks_max_age + leeway before it signs, so no cached copy can miss it.
"""

from __future__ import annotations

import json

from authgate.stores.signing_keys import KeyStore
from authgate.tokens.jwk import only_public


def jwk_set() -> dict[str, list[dict[str, object]]]:
    """The published JWK Set: only public members, and kid, alg, use on every key."""
    keys = []
    for record in KeyStore().published():
        published = json.loads(record.public_jwk)
        published.update(kid=record.kid, alg=record.alg, use="sig")
        keys.append(only_public(published))
    return {"keys": keys}
