"""JWS compact serialization (RFC 7515 sections 3.1, 5.1 and 7.1) and what signs it.

A signer turns a JWS signing input into the raw JWS signature for its key; the backends in
tokens.backends make and load signers (a local key from Secrets Manager, or a KMS key).
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from authgate import base64url, strict_json

# JWS alg -> JWK kty (RFC 7518 section 3.1)
ALGORITHMS = {"RS256": "RSA", "ES256": "EC"}

# One encoder for every header and claims set (json.dumps with options builds a new one per call).
_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


class Signer(Protocol):
    @property
    def kid(self) -> str: ...

    @property
    def alg(self) -> str: ...

    def sign(self, signing_input: bytes) -> bytes:
        """The JWS signature over `signing_input` (for ES256: r || s, 64 bytes)."""
        ...


def der_to_raw(der: bytes) -> bytes:
    """An ECDSA signature from DER (SEQUENCE of two INTEGERs) to JWS's r || s, 32 bytes each for
    P-256 (RFC 7518 section 3.4)."""
    # On first use, as tokens.jwa imports cryptography (docs/decisions.md, measured shortcuts).
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    r, s = decode_dss_signature(der)
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def encode_json(value: dict[str, Any]) -> str:
    """BASE64URL(UTF8(JSON)) of a JOSE header or claims set (RFC 7515 section 5.1)."""
    return base64url.encode(_JSON.encode(value).encode("utf-8"))


def compact(header: dict[str, Any], claims: dict[str, Any], signer: Signer) -> str:
    """header.payload.signature, signed by `signer` (RFC 7515 section 7.1)."""
    signing_input = f"{encode_json(header)}.{encode_json(claims)}"
    return f"{signing_input}.{base64url.encode(signer.sign(signing_input.encode('ascii')))}"


def segment_bytes(segment: str) -> bytes:
    """The octets of one JWS segment; ValueError unless unpadded canonical base64url (RFC 7515 2)."""
    if segment.endswith("="):
        raise ValueError("a JWS segment carries no padding (RFC 7515 2)")
    return base64url.decode(segment)


def segment_json(segment: str) -> dict[str, Any] | None:
    """A segment's JSON object (a JOSE header or a payload), or None when it is not one.

    The one parser of JWS JSON (RFC 7515 5.2 steps 2-4): unpadded base64url, UTF-8 only (no
    other encoding is sniffed), strict JSON (authgate.strict_json: no duplicate names, no
    NaN/Infinity, no lone surrogates, no nesting that exhausts the parser), an object.
    """
    try:
        value = strict_json.loads(segment_bytes(segment).decode("utf-8"))
    except ValueError:  # binascii.Error, UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None
    return value if isinstance(value, dict) else None
