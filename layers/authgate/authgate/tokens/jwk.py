"""Keys as JWKs (RFC 7517 section 4, RFC 7518 section 6), both ways: the one key format we use.

Public JWKs are what the JWKS publishes (only public members, ever). A private JWK (RFC 7518
6.3.2 / 6.2.2: d, p, q, dp, dq, qi; EC d) is how the local backend keeps a signing key in
Secrets Manager: it loads with cryptography's number classes alone, where a PEM needs its
serialization package, a cost to a token function's cold start (docs/decisions.md). No module-level
cryptography import: the JWKS path imports this module.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from authgate import base64url

# The members a published key may carry; anything else (d, p, q, ...) never leaves the server.
PUBLIC_MEMBERS = {
    "RSA": ("kty", "kid", "alg", "use", "n", "e"),
    "EC": ("kty", "kid", "alg", "use", "crv", "x", "y"),
    "OKP": ("kty", "kid", "alg", "use", "crv", "x"),
}
P256_COORDINATE = 32
# RFC 7518 6.2.2 (EC d) and 6.3.2 (RSA); RFC 8037 2 (OKP d): any of these makes a JWK private.
PRIVATE_MEMBERS = ("d", "p", "q", "dp", "dq", "qi", "oth", "k")
# RFC 7638 3.2 (RSA, EC) and RFC 8037 2 (OKP): the members a thumbprint hashes.
THUMBPRINT_MEMBERS = {"RSA": ("e", "kty", "n"), "EC": ("crv", "kty", "x", "y"), "OKP": ("crv", "kty", "x")}
# NIST SP 800-57 / RFC 7518 3.3: RSA keys of 2048 bits or larger.
MIN_RSA_BITS = 2048
# The one public exponent accepted: an attacker's huge `e` makes every verification slow (and a
# failed one spends nothing), and every key this service or a client generates uses 65537.
RSA_EXPONENT = b"\x01\x00\x01"
ED25519_KEY_BYTES = 32
_ED25519_P = 2**255 - 19
# The y coordinates of Ed25519's eight points of small order (1, 2, 4, 8; each y with either
# sign of x): with such a key one signature verifies for every message (the identity point's,
# R = identity and S = 0), so anyone could forge a client's private_key_jwt or a DPoP proof.
_ED25519_SMALL_ORDER_Y = frozenset({
    0, 1, _ED25519_P - 1,
    0x7A03AC9277FDC74EC6CC392CFA53202A0F67100D760B3CBA4FD84D3D706A17C7,
    0x05FC536D880238B13933C6D305ACDFD5F098EFF289F4C345B027B2C28F95E826,
})


def _b64(value: int, length: int | None = None) -> str:
    size = length or max(1, (value.bit_length() + 7) // 8)
    return base64url.encode(value.to_bytes(size, "big"))


def _bytes(jwk: dict[str, Any], member: str) -> bytes:
    value = jwk.get(member)
    if not isinstance(value, str):
        raise TypeError(f"JWK member {member} is not a string")
    if value.endswith("="):
        raise ValueError(f"JWK member {member} is padded (RFC 7515 2: base64url without padding)")
    return base64url.decode(value)


def _int(jwk: dict[str, Any], member: str) -> int:
    return int.from_bytes(_bytes(jwk, member), "big")


def _unsigned(jwk: dict[str, Any], member: str) -> int:
    """An RSA member in its canonical form: no leading zero octet (RFC 7518 6.3.1)."""
    data = _bytes(jwk, member)
    if not data or data[0] == 0:
        raise ValueError(f"JWK member {member} is not minimal (RFC 7518 6.3.1: no leading zero octets)")
    return int.from_bytes(data, "big")


def _coordinate(jwk: dict[str, Any], member: str) -> int:
    """An EC P-256 coordinate: exactly 32 octets (RFC 7518 6.2.1.2, 6.2.1.3)."""
    data = _bytes(jwk, member)
    if len(data) != P256_COORDINATE:
        raise ValueError(f"JWK member {member} is {len(data)} octets; P-256 needs exactly {P256_COORDINATE}")
    return int.from_bytes(data, "big")


def ed25519_public_bytes(jwk: dict[str, Any]) -> bytes:
    """An OKP Ed25519 `x` (RFC 8037 2): 32 octets, the canonical encoding of a point not of small order."""
    data = _bytes(jwk, "x")
    if len(data) != ED25519_KEY_BYTES:
        raise ValueError(f"an Ed25519 key is {ED25519_KEY_BYTES} octets, not {len(data)}")
    y = int.from_bytes(data, "little") & ((1 << 255) - 1)
    if y >= _ED25519_P:
        raise ValueError("the Ed25519 key is not canonically encoded (y >= p; RFC 8032 5.1.3)")
    if y in _ED25519_SMALL_ORDER_Y:
        raise ValueError("the Ed25519 key is a point of small order: any signature would verify")
    return data


def public_jwk(public_key: Any, kid: str, alg: str) -> dict[str, Any]:
    """The JWK of a cryptography public key, with kid, alg and use=sig."""
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    if isinstance(public_key, rsa.RSAPublicKey):
        rsa_numbers = public_key.public_numbers()
        return {"kty": "RSA", "kid": kid, "alg": alg, "use": "sig",
                "n": _b64(rsa_numbers.n), "e": _b64(rsa_numbers.e)}
    if isinstance(public_key, ec.EllipticCurvePublicKey) and isinstance(public_key.curve, ec.SECP256R1):
        ec_numbers = public_key.public_numbers()
        return {"kty": "EC", "kid": kid, "alg": alg, "use": "sig", "crv": "P-256",
                "x": _b64(ec_numbers.x, P256_COORDINATE), "y": _b64(ec_numbers.y, P256_COORDINATE)}
    raise ValueError(f"unsupported public key type {type(public_key).__name__}")


def only_public(jwk: dict[str, Any]) -> dict[str, Any]:
    """`jwk` reduced to its public members (defence in depth for the JWKS response)."""
    allowed = PUBLIC_MEMBERS.get(str(jwk.get("kty")), ())
    return {k: jwk[k] for k in allowed if k in jwk}


def public_key(jwk: dict[str, Any]) -> Any:
    """The cryptography public key of an RSA, EC P-256 or OKP Ed25519 JWK; ValueError (TypeError) otherwise.

    Every key is held to one encoding, so one key has one RFC 7638 thumbprint: RSA `n` and `e`
    without leading zero octets and `e` = 65537 (RFC 7518 6.3.1), EC coordinates of exactly the
    curve's size (6.2.1.2), an Ed25519 point canonical and not of small order (RFC 8032 5.1.3).
    """
    # Only the key type's own module: a cold RSA verifier does not pay for importing EC's.
    if jwk.get("kty") == "RSA":
        from cryptography.hazmat.primitives.asymmetric import rsa

        n = _unsigned(jwk, "n")
        if _bytes(jwk, "e") != RSA_EXPONENT:
            raise ValueError("the RSA public exponent must be 65537 (AQAB)")
        return rsa.RSAPublicNumbers(65537, n).public_key()
    if jwk.get("kty") == "EC" and jwk.get("crv") == "P-256":
        from cryptography.hazmat.primitives.asymmetric import ec

        return ec.EllipticCurvePublicNumbers(_coordinate(jwk, "x"), _coordinate(jwk, "y"),
                                             ec.SECP256R1()).public_key()
    if jwk.get("kty") == "OKP" and jwk.get("crv") == "Ed25519":
        # RFC 8037 2: x is the raw 32-byte public key.
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        return Ed25519PublicKey.from_public_bytes(ed25519_public_bytes(jwk))
    raise ValueError(f"unsupported JWK (kty {jwk.get('kty')!r}, crv {jwk.get('crv')!r})")


def public_proof_key(jwk: dict[str, Any]) -> Any:
    """The public key of a JWK a client sent (a DPoP `jwk`): RSA (2048 bits or more), EC P-256, OKP Ed25519.

    ValueError (TypeError) for a private key (RFC 9449 4.3 step 7: `d` or RSA's other private
    members present), a symmetric key (`oct`) or any other type or curve.
    """
    if any(member in jwk for member in PRIVATE_MEMBERS):
        raise ValueError("the JWK holds private key members")
    key = public_key(jwk)
    if jwk.get("kty") == "RSA" and key.key_size < MIN_RSA_BITS:
        raise ValueError(f"RSA key of {key.key_size} bits; at least {MIN_RSA_BITS} required")
    return key


def thumbprint(jwk: dict[str, Any]) -> str:
    """The RFC 7638 SHA-256 JWK thumbprint, base64url: the `jkt` of RFC 9449 6.1 (cnf) and 10 (dpop_jkt).

    Only the required members, in lexicographic order, no whitespace (RFC 7638 3.2); member
    values are base64url or curve names, so no JSON escaping question arises (3.3).
    """
    members = THUMBPRINT_MEMBERS.get(str(jwk.get("kty")))
    if members is None or any(not isinstance(jwk.get(m), str) for m in members):
        raise ValueError("the JWK lacks the members its thumbprint needs")
    canonical = json.dumps({m: jwk[m] for m in members}, separators=(",", ":"), sort_keys=True)
    return base64url.encode(hashlib.sha256(canonical.encode("utf-8")).digest())


def private_jwk(private_key: Any, kid: str, alg: str) -> dict[str, Any]:
    """The private JWK of a cryptography RSA or P-256 private key (public members included)."""
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    jwk = public_jwk(private_key.public_key(), kid, alg)
    if isinstance(private_key, rsa.RSAPrivateKey):
        n = private_key.private_numbers()
        jwk.update(d=_b64(n.d), p=_b64(n.p), q=_b64(n.q), dp=_b64(n.dmp1), dq=_b64(n.dmq1), qi=_b64(n.iqmp))
    elif isinstance(private_key, ec.EllipticCurvePrivateKey):
        jwk["d"] = _b64(private_key.private_numbers().private_value, P256_COORDINATE)
    return jwk


def private_key(jwk: dict[str, Any]) -> Any:
    """The cryptography private key of a private JWK written by `private_jwk`.

    RSA keys load without cryptography's consistency checks (docs/decisions.md): safe only
    because the key is ours, generated and stored by this service in a secret only its roles
    can read; never load a key from elsewhere this way.
    """
    # Only the key type's own module: a cold RSA signer does not pay for importing EC's.
    if jwk.get("kty") == "RSA":
        from cryptography.hazmat.primitives.asymmetric import rsa

        public = rsa.RSAPublicNumbers(_int(jwk, "e"), _int(jwk, "n"))
        numbers = rsa.RSAPrivateNumbers(_int(jwk, "p"), _int(jwk, "q"), _int(jwk, "d"), _int(jwk, "dp"),
                                        _int(jwk, "dq"), _int(jwk, "qi"), public)
        return numbers.private_key(unsafe_skip_rsa_key_validation=True)
    if jwk.get("kty") == "EC" and jwk.get("crv") == "P-256":
        from cryptography.hazmat.primitives.asymmetric import ec

        public_ec = ec.EllipticCurvePublicNumbers(_int(jwk, "x"), _int(jwk, "y"), ec.SECP256R1())
        return ec.EllipticCurvePrivateNumbers(_int(jwk, "d"), public_ec).private_key()
    raise ValueError(f"unsupported private JWK (kty {jwk.get('kty')!r})")
