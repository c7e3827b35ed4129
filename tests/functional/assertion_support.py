"""Client assertions for private_key_jwt (RFC 7523 2.2), signed by joserfc, an independent library."""

from __future__ import annotations

import uuid
from typing import Any

from joserfc import jwt
from joserfc.jwk import import_key

from tests.demo import ISSUER

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


def new_private_jwk(kty: str = "EC", kid: str = "k1") -> dict[str, Any]:
    """A fresh private JWK (EC P-256, RSA 2048 or OKP Ed25519) made by joserfc."""
    from joserfc.jwk import ECKey, OKPKey, RSAKey

    key: Any = {"EC": lambda: ECKey.generate_key("P-256"), "RSA": lambda: RSAKey.generate_key(2048),
                "OKP": lambda: OKPKey.generate_key("Ed25519")}[kty]()
    return {**key.as_dict(private=True), "kid": kid}


def public_of(private: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in private.items() if k not in ("d", "p", "q", "dp", "dq", "qi")}


def assertion(private: dict[str, Any], client_id: str, now: int, *, alg: str = "ES256", aud: Any = ISSUER,
              header: dict[str, Any] | None = None, **claims: Any) -> str:
    """A signed client assertion; a claim given as None is left out."""
    body = {"iss": client_id, "sub": client_id, "aud": aud, "iat": now, "exp": now + 60, "jti": str(uuid.uuid4())}
    body.update(claims)
    body = {k: v for k, v in body.items() if v is not None}
    protected = {"alg": alg, "kid": private.get("kid"), **(header or {})}
    protected = {k: v for k, v in protected.items() if v is not None}
    return jwt.encode(protected, body, import_key(private), algorithms=[alg])


def assertion_fields(token: str, client_id: str | None = None) -> list[tuple[str, str]]:
    fields = [("client_assertion_type", ASSERTION_TYPE), ("client_assertion", token)]
    return fields + ([("client_id", client_id)] if client_id else [])


def demo_fapi_key() -> dict[str, Any]:
    """demo-fapi's private JWK, from the local seed (where alone it lives)."""
    import json

    from authgate_cli.local.seed import DEMO_SEED

    seed = json.loads(DEMO_SEED.read_text("utf-8"))
    (client,) = [c for c in seed["clients"] if c["client_id"] == "demo-fapi"]
    return dict(client["private_jwk"])
