"""A test identity provider: its signing keys, its JWK Set, and the ID-JAGs it signs
(draft-ietf-oauth-identity-assertion-authz-grant 3)."""

from __future__ import annotations

import json
from typing import Any

from joserfc.jwk import RSAKey


class TestIdp:
    """An IdP with one RS256 key (`kid`); `jwks()` its public JWK Set."""

    __test__ = False

    def __init__(self, issuer: str, kid: str = "idp-key-1") -> None:
        self.issuer = issuer
        self.kid = kid
        self.key = RSAKey.generate_key(2048, parameters={"kid": kid, "alg": "RS256", "use": "sig"})

    def jwks(self) -> dict[str, Any]:
        return {"keys": [dict(self.key.as_dict(private=False))]}

    def jwks_json(self) -> bytes:
        return json.dumps(self.jwks()).encode()
