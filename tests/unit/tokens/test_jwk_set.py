"""tokens.jwk_set (RFC 7517 5): the published keys, public members only, each with kid, alg and use."""

from __future__ import annotations

import json

from cryptography.hazmat.primitives.asymmetric import ec

from authgate.stores.signing_keys import CURRENT, NEXT, PREVIOUS, RETIRED, KeyRecord, KeyStore
from authgate.tokens import jwk
from authgate.tokens.jwk_set import jwk_set

NOW = 1_750_000_000


def stored(kid: str, state: str) -> None:
    private = ec.generate_private_key(ec.SECP256R1())
    # As a careless writer might store it: the private member too. The set must never show it.
    public_jwk = {**jwk.private_jwk(private, kid, "ES256"), "kid": "stale-kid", "alg": "RS256"}
    KeyStore().create(KeyRecord(kid=kid, state=state, alg="ES256", backend="local", public_jwk=json.dumps(public_jwk),
                                created_at=NOW, activates_at=NOW))


def test_the_set_holds_next_current_and_previous_with_public_members_only(aws: None) -> None:
    for kid, state in (("c", CURRENT), ("n", NEXT), ("p", PREVIOUS), ("r", RETIRED)):
        stored(kid, state)
    keys = jwk_set()["keys"]
    assert [k["kid"] for k in keys] == ["c", "n", "p"]
    for key in keys:
        assert set(key) == {"kty", "crv", "x", "y", "kid", "alg", "use"}
        assert (key["alg"], key["use"]) == ("ES256", "sig")
