"""A test identity provider: its signing keys, its JWK Set, and the ID-JAGs it signs
(draft-ietf-oauth-identity-assertion-authz-grant 3)."""

from __future__ import annotations

import itertools
import json
import time
import uuid
import warnings
from typing import Any

from joserfc import jwt
from joserfc.jwk import RSAKey

ID_JAG_TYP = "oauth-id-jag+jwt"
# RSA keys made once per process and handed out in turn: a 2048-bit generation costs up to half a second of
# CPU, and a test made one per IdP. Each TestIdp holds another key than the POOL - 1 made before it, so a
# test's forger (same issuer, same kid) never holds its trusted IdP's key; no test makes POOL of them. The
# key is handed out as cryptography's key object, not its private JWK: importing that checks the key again,
# about 30 ms of CPU each time.
POOL = 8
_made: list[RSAKey] = []
_turn = itertools.count()


def _rsa_key(kid: str) -> RSAKey:
    """The next key of the pool, named `kid`."""
    index = next(_turn) % POOL
    if index == len(_made):
        _made.append(RSAKey.generate_key(2048))
    private = _made[index].private_key
    assert private is not None
    return RSAKey.import_key(private, {"kid": kid, "alg": "RS256", "use": "sig"})


class TestIdp:
    """An IdP with one RS256 key (`kid`); `jwks()` its public JWK Set, `id_jag()` an assertion it signs."""

    __test__ = False

    def __init__(self, issuer: str, kid: str = "idp-key-1") -> None:
        self.issuer = issuer
        self.kid = kid
        self.key = _rsa_key(kid)

    def jwks(self) -> dict[str, Any]:
        return {"keys": [dict(self.key.as_dict(private=False))]}

    def jwks_json(self) -> bytes:
        return json.dumps(self.jwks()).encode()

    def id_jag(self, *, audience: str, client_id: str, subject: str = "alice", resource: str | None = None,
               scope: str | None = None, lifetime: int = 300, now: int | None = None,
               header: dict[str, Any] | None = None, **claims: Any) -> str:
        """An ID-JAG (3): typ oauth-id-jag+jwt; iss, sub, aud, client_id, jti, exp, iat, resource, scope.
        A claim or header member given as None is left out."""
        issued = int(time.time()) if now is None else now
        h: dict[str, Any] = {"typ": ID_JAG_TYP, "alg": "RS256", "kid": self.kid, **(header or {})}
        c: dict[str, Any] = {"iss": self.issuer, "sub": subject, "aud": audience, "client_id": client_id,
                             "jti": str(uuid.uuid4()), "iat": issued, "exp": issued + lifetime,
                             "resource": resource, "scope": scope, **claims}
        h = {k: v for k, v in h.items() if v is not None}
        c = {k: v for k, v in c.items() if v is not None}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return str(jwt.encode(h, c, self.key, algorithms=[h["alg"]]))
