"""Security Event Tokens (RFC 8417) as the Shared Signals Framework profiles them (SSF 1.0 4.1).

A SET is a JWT whose claims say that something happened: `iss`, `iat`, `jti` (RFC 8417 2.2), `aud`
(the receiver), `txn` (SSF 1.0 4.1.9: the same for every SET of one cause), `sub_id` (SSF 1.0 3.1:
the subject, RFC 9493) and `events` (one event type and its claims, SSF 1.0 4.2.1), never `sub` or
`exp` (SSF 1.0 4.1.2, 4.1.7: so no SET is taken for an ID or access token). The JOSE header is
explicitly typed `secevent+jwt` (RFC 8417 2.3, SSF 1.0 4.1.1), with the `kid` of the key in the
JWK Set the transmitter configuration names (SSF 1.0 4.1.4). Signed RS256, the ID tokens' default
algorithm, with the same keys (the CAEP interoperability profile asks for RS256 with 2048-bit
keys); signed when sent, by the deliver function, as logout tokens are.
"""

from __future__ import annotations

import secrets
from typing import Any

from authgate.settings import ID_TOKEN_DEFAULT_ALG
from authgate.tokens.current_signer import current_signer
from authgate.tokens.jws import compact

SET_TYPE = "secevent+jwt"
# The members a SET's claims may have here (RFC 8417 2.2; SSF 1.0 4.1); `sub` and `exp` are never among them.
CLAIMS = ("iss", "jti", "iat", "aud", "txn", "sub_id", "events")


def sign_set(claims: dict[str, Any]) -> str:
    """The compact JWS of a SET's claims (only CLAIMS are kept), typ secevent+jwt, RS256."""
    signer = current_signer(alg=ID_TOKEN_DEFAULT_ALG)
    kept = {name: claims[name] for name in CLAIMS if name in claims}
    return compact({"typ": SET_TYPE, "alg": signer.alg, "kid": signer.kid}, kept, signer)


def new_jti(now_ms: int) -> str:
    """A SET's jti (RFC 8417 2.2: unique): the time in milliseconds, then 80 random bits, in hex, so jti values sort
    in the order they were made (a poll answers the oldest first)."""
    return f"{now_ms:012x}{secrets.token_hex(10)}"
