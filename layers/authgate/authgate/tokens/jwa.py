"""The JWS algorithms we verify (RFC 7518 section 3, RFC 8037 3.1): RS256, ES256, PS256, EdDSA.

A signature is checked as RFC 7518 specifies: RS256 is RSASSA-PKCS1-v1_5 with SHA-256 (3.3);
ES256 is ECDSA P-256 with SHA-256 whose JWS signature is r || s, 32 bytes each (3.4), turned
into DER for cryptography (keys come from tokens.jwk); PS256 is RSASSA-PSS with SHA-256, MGF1
SHA-256 and a 32-byte salt (3.5); EdDSA is Ed25519 (RFC 8037 3.1). Access tokens are RS256 or
ES256; DPoP proofs (tokens.dpop) may use any of the four. Symmetric algorithms and `none` are
never verified: a key whose type does not match `alg` fails. Written here rather than through PyJWT:
this is all a resource needs of it, and importing PyJWT lengthens the charges function's cold
start (docs/decisions.md).
"""

from __future__ import annotations

from typing import Any

ES256_SIGNATURE_LENGTH = 64
# RFC 7518 3.5: the salt is as long as the hash output (32 bytes for SHA-256).
PS256_SALT_LENGTH = 32


def verify(alg: str, key: Any, signing_input: bytes, signature: bytes) -> bool:
    """True when `signature` is `key`'s `alg` signature over `signing_input` (RS256, ES256, PS256, EdDSA)."""
    # cryptography is imported on first use, after the AWS clients are built and frozen out of the
    # collector's sight (authgate.aws): loaded with the function, the collections during the
    # clients' build would walk its objects too (docs/decisions.md, measured shortcuts).
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes

    # Each algorithm imports only its own key type's module: a cold RS256 resource server does
    # not pay for loading the EC and Ed25519 ones (docs/decisions.md, measured shortcuts).
    try:
        if alg in ("RS256", "PS256"):
            from cryptography.hazmat.primitives.asymmetric import padding, rsa

            if not isinstance(key, rsa.RSAPublicKey):
                return False
            if alg == "RS256":
                key.verify(signature, signing_input, padding.PKCS1v15(), hashes.SHA256())
            else:
                key.verify(signature, signing_input, padding.PSS(mgf=padding.MGF1(hashes.SHA256()),
                                                                 salt_length=PS256_SALT_LENGTH), hashes.SHA256())
            return True
        # Ed25519 is RFC 9864 2.2's fully specified name for EdDSA over Ed25519.
        if alg in ("EdDSA", "Ed25519"):
            from cryptography.hazmat.primitives.asymmetric import ed25519

            if not isinstance(key, ed25519.Ed25519PublicKey):
                return False
            key.verify(signature, signing_input)
            return True
        from cryptography.hazmat.primitives.asymmetric import ec

        if alg == "ES256" and isinstance(key, ec.EllipticCurvePublicKey):
            if len(signature) != ES256_SIGNATURE_LENGTH:
                return False
            from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

            r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
            key.verify(encode_dss_signature(r, s), signing_input, ec.ECDSA(hashes.SHA256()))
            return True
    except (InvalidSignature, TypeError, ValueError):
        return False
    return False
