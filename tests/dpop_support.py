"""DPoP proofs made by joserfc, an outside JOSE library (RFC 9449 4.2), for the functional and e2e tests.

Nothing here uses authgate's own JOSE code: proofs, keys and thumbprints come from joserfc, so a
test that passes shows authgate interoperates with an independent implementation.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
import uuid
import warnings
from typing import Any

from joserfc import jws, jwt
from joserfc.jwk import ECKey, OKPKey, RSAKey

KEY_TYPES = {"ES256": lambda: ECKey.generate_key("P-256"), "EdDSA": lambda: OKPKey.generate_key("Ed25519"),
             "RS256": lambda: RSAKey.generate_key(2048), "PS256": lambda: RSAKey.generate_key(2048)}


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def ath(access_token: str) -> str:
    return b64(hashlib.sha256(access_token.encode()).digest())


class DpopKey:
    """A client's DPoP key pair and the proofs it signs."""

    def __init__(self, alg: str = "ES256") -> None:
        self.alg = alg
        self.key = KEY_TYPES[alg]()

    @property
    def public_jwk(self) -> dict[str, Any]:
        return dict(self.key.as_dict(private=False))

    @property
    def jkt(self) -> str:
        """RFC 7638 SHA-256 thumbprint, computed by joserfc."""
        return str(self.key.thumbprint())

    def proof(self, method: str, url: str, *, access_token: str | None = None, nonce: str | None = None,
              iat: int | None = None, jti: str | None = None, header: dict[str, Any] | None = None,
              claims: dict[str, Any] | None = None) -> str:
        """A proof for `method` `url`; `header`/`claims` override or add members (None removes one)."""
        h: dict[str, Any] = {"typ": "dpop+jwt", "alg": self.alg, "jwk": self.public_jwk}
        c: dict[str, Any] = {"jti": jti or str(uuid.uuid4()), "htm": method, "htu": url,
                             "iat": int(time.time()) if iat is None else iat}
        if access_token is not None:
            c["ath"] = ath(access_token)
        if nonce is not None:
            c["nonce"] = nonce
        for target, extra in ((h, header), (c, claims)):
            for name, value in (extra or {}).items():
                if value is None:
                    target.pop(name, None)
                else:
                    target[name] = value
        with warnings.catch_warnings():
            # joserfc flags the polymorphic "EdDSA" (RFC 9864); RFC 9449 servers still name it so.
            warnings.simplefilter("ignore")
            return str(jwt.encode(h, c, self.key, algorithms=[self.alg]))


def unsigned_proof(header: dict[str, Any], claims: dict[str, Any], signature: bytes = b"") -> str:
    """A proof with any header (alg none, say) and the given raw signature: what an attacker sends."""
    def seg(value: dict[str, Any]) -> str:
        return b64(json.dumps(value).encode())

    return f"{seg(header)}.{seg(claims)}.{b64(signature)}"


def hs256_proof(header: dict[str, Any], claims: dict[str, Any], secret: bytes) -> str:
    """An HS256-signed proof made by joserfc (a MAC is never an acceptable proof, RFC 9449 4.3 step 5)."""
    from joserfc.jwk import OctKey

    return str(jws.serialize_compact({**header, "alg": "HS256"}, json.dumps(claims).encode(),
                                     OctKey.import_key(secret), algorithms=["HS256"]))
