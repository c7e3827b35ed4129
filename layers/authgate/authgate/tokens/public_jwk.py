"""Public keys as JWKs (RFC 7517 section 4, RFC 7518 section 6): only public parameters."""

from __future__ import annotations

from typing import Any

from authgate import base64url

# The members a published key may carry; anything else (d, p, q, ...) never leaves the server.
PUBLIC_MEMBERS = {
    "RSA": ("kty", "kid", "alg", "use", "n", "e"),
    "EC": ("kty", "kid", "alg", "use", "crv", "x", "y"),
}


def _uint(value: int, length: int | None = None) -> str:
    size = length or max(1, (value.bit_length() + 7) // 8)
    return base64url.encode(value.to_bytes(size, "big"))


def public_jwk(public_key: Any, kid: str, alg: str) -> dict[str, Any]:
    """The JWK of a cryptography public key, with kid, alg and use=sig."""
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    if isinstance(public_key, rsa.RSAPublicKey):
        rsa_numbers = public_key.public_numbers()
        return {"kty": "RSA", "kid": kid, "alg": alg, "use": "sig",
                "n": _uint(rsa_numbers.n), "e": _uint(rsa_numbers.e)}
    if isinstance(public_key, ec.EllipticCurvePublicKey) and isinstance(public_key.curve, ec.SECP256R1):
        ec_numbers = public_key.public_numbers()
        return {"kty": "EC", "kid": kid, "alg": alg, "use": "sig", "crv": "P-256",
                "x": _uint(ec_numbers.x, 32), "y": _uint(ec_numbers.y, 32)}
    raise ValueError(f"unsupported public key type {type(public_key).__name__}")


def only_public(jwk: dict[str, Any]) -> dict[str, Any]:
    """`jwk` reduced to its public members (defence in depth for the JWKS response)."""
    allowed = PUBLIC_MEMBERS.get(str(jwk.get("kty")), ())
    return {k: jwk[k] for k in allowed if k in jwk}
