"""A client's registered public keys (RFC 7591 2 `jwks`, RFC 7517 5) and picking one to verify with.

A registered key is public only: a JWK carrying a private member (RFC 7518 6.2.2, 6.3.2,
RFC 8037 2: d, p, q, dp, dq, qi, oth, k) is refused, so the clients table never holds a
client's secret key. Key types follow the algorithms we accept for client authentication
(FAPI 2.0 5.4: PS256, ES256, EdDSA; RSA keys at least 2048 bits).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from authgate.tokens import jwk as jwk_module

# JWS alg -> (kty, crv) of the key that verifies it (RFC 7518 3.1, RFC 8037 3.1).
# Ed25519 is RFC 9864's fully specified name for EdDSA over Ed25519 (which it deprecates).
ASSERTION_ALGORITHMS = {"ES256": ("EC", "P-256"), "PS256": ("RSA", None), "EdDSA": ("OKP", "Ed25519"),
                        "Ed25519": ("OKP", "Ed25519")}
# A trusted identity provider's keys also sign with RS256 (what Okta, Entra and Google publish;
# draft-ietf-oauth-identity-assertion-authz-grant leaves the algorithm to the IdP); never none or HS*.
IDP_ALGORITHMS = {**ASSERTION_ALGORITHMS, "RS256": ("RSA", None)}
PRIVATE_MEMBERS = ("d", "p", "q", "dp", "dq", "qi", "oth", "k")
MIN_RSA_BITS = 2048
MAX_KEYS = 10


class InvalidJwks(ValueError):
    """A JWK Set a client may not register; the message says which key and why."""


def validate(document: Any, algorithms: dict[str, tuple[str, str | None]] = ASSERTION_ALGORITHMS,
             max_keys: int = MAX_KEYS) -> tuple[dict[str, Any], ...]:
    """The keys of a JWK Set document ({"keys": [...]}) as they will be stored, or InvalidJwks."""
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise InvalidJwks('a JWK Set is a JSON object {"keys": [...]} (RFC 7517 5)')
    keys = document["keys"]
    if not keys:
        raise InvalidJwks("the JWK Set has no keys")
    if len(keys) > max_keys:
        raise InvalidJwks(f"the JWK Set has more than {max_keys} keys")
    out, kids = [], set()
    for index, key in enumerate(keys):
        out.append(_public(key, index, algorithms))
        kid = key.get("kid")
        if kid is not None:
            if kid in kids:
                raise InvalidJwks(f"key {index}: kid {kid!r} is used twice")
            kids.add(kid)
    return tuple(out)


def _public(key: Any, index: int, algorithms: dict[str, tuple[str, str | None]]) -> dict[str, Any]:
    if not isinstance(key, dict):
        raise InvalidJwks(f"key {index} is not a JSON object")
    private = [m for m in PRIVATE_MEMBERS if m in key]
    if private:
        raise InvalidJwks(f"key {index} holds the private member {private[0]!r}: register public keys only "
                          "and keep the private key with the client")
    kty, crv = key.get("kty"), key.get("crv")
    if (kty, crv) not in {(t, c) for t, c in algorithms.values()} and kty != "RSA":
        raise InvalidJwks(f"key {index}: kty {kty!r} crv {crv!r} is not supported (RSA, EC P-256, OKP Ed25519)")
    if key.get("use", "sig") != "sig":
        raise InvalidJwks(f"key {index}: use must be sig")
    alg = key.get("alg")
    if alg is not None and alg not in algorithms:
        raise InvalidJwks(f"key {index}: alg {alg!r} is not accepted; use one of {', '.join(algorithms)}")
    kid = key.get("kid")
    if kid is not None and (not isinstance(kid, str) or not kid or len(kid) > 200):
        raise InvalidJwks(f"key {index}: kid must be a non-empty string")
    try:
        public = jwk_module.public_key(key)
    except (TypeError, ValueError) as exc:
        raise InvalidJwks(f"key {index} is not a valid public key: {exc}") from None
    if kty == "RSA" and public.key_size < MIN_RSA_BITS:
        raise InvalidJwks(f"key {index}: RSA keys must have at least {MIN_RSA_BITS} bits (FAPI 2.0 5.4)")
    return jwk_module.only_public(key)


def candidates(keys: Sequence[dict[str, Any]], alg: str, kid: str | None,
               algorithms: dict[str, tuple[str, str | None]] = ASSERTION_ALGORITHMS) -> Iterable[Any]:
    """The public keys that may have signed a JWS with `alg` and `kid` (RFC 7515 4.1.4): by kid
    when the header names one, else every key of the algorithm's type (RFC 7517 4.4 `alg` honoured)."""
    kty, crv = algorithms[alg]
    for key in keys:
        if kid is not None and key.get("kid") != kid:
            continue
        if key.get("kty") != kty or (crv is not None and key.get("crv") != crv):
            continue
        if key.get("alg") not in (None, alg):
            continue
        try:
            yield jwk_module.public_key(key)
        except (TypeError, ValueError):
            continue
