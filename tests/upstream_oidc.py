"""A scripted upstream OpenID Provider on the test HTTPS server: its discovery document, keys, token and UserInfo
answers, and the ID and logout tokens it signs (joserfc, not authgate's JOSE).

The unit tests of authgate.federation.oidc drive the relying party against it: each test sets what the
provider answers (a token response holding an ID token with the claims it needs, forged or not) and
checks what the relying party makes of it. The interop tests use panva's oidc-provider instead
(tests/e2e/oidc_provider/).
"""

from __future__ import annotations

import base64
import json
import time
import uuid
import warnings
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl

from joserfc import jws
from joserfc.jwk import ECKey, OctKey, RSAKey

from authgate.identity_providers.model import IdentityProvider
from tests.document_server import DocumentServer, Route

CLIENT_ID = "authgate-client"
CLIENT_SECRET = "upstream-client-secret-0123456789"
REDIRECT_URI = "http://127.0.0.1:3000/oauth/federation/callback"
STATE = "state-0123456789abcdefghij"
NONCE = "nonce-0123456789abcdefghij"
CODE_VERIFIER = "verifier-" + "v" * 50
CODE = "upstream-code-0123456789"
ACCESS_TOKEN = "upstream-access-token-0123456789"


@lru_cache(maxsize=16)
def provider_key(name: str, kid: str) -> RSAKey:
    """A provider's RSA key, made once per process (2048-bit generation costs a tenth of a second or more)."""
    return RSAKey.generate_key(2048, parameters={"kid": kid, "alg": "RS256", "use": "sig"})


def sign(header: dict[str, Any], claims: dict[str, Any], key: Any) -> str:
    """A compact JWS of exactly `header` (joserfc's jwt.encode would add a typ) over the claims."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return str(jws.serialize_compact(header, json.dumps(claims).encode(), key, algorithms=[header["alg"]]))


class ScriptedProvider:
    """An OpenID Provider whose issuer is `https://127.0.0.1:PORT/<name>` on `server`."""

    __test__ = False

    def __init__(self, server: DocumentServer, name: str, *, kid: str = "op-key-1", **metadata: Any) -> None:
        self.server = server
        self.name = name
        self.issuer = server.url(f"/{name}")
        self.kid = kid
        self.key = provider_key(name, kid)
        self.metadata = {
            "issuer": self.issuer, "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token", "jwks_uri": f"{self.issuer}/jwks",
            "userinfo_endpoint": f"{self.issuer}/userinfo", "end_session_endpoint": f"{self.issuer}/logout",
            "response_types_supported": ["code"], "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"], **metadata}
        self.publish()

    def publish(self) -> None:
        """Serve the discovery document and the keys as they are now."""
        routes = self.server.routes
        routes[f"/{self.name}/.well-known/openid-configuration"] = Route(json.dumps(self.metadata).encode())
        routes[f"/{self.name}/jwks"] = Route(json.dumps({"keys": [dict(self.key.as_dict(private=False))]}).encode())

    def idp(self, **fields: Any) -> IdentityProvider:
        """The tenant's record of this provider (the client secret sealed as the admin command seals it)."""
        from authgate.federation import secrets

        values: dict[str, Any] = {"protocol": "oidc", "client_id": CLIENT_ID, "sign_in": True, "idp_id": self.name,
                                  "client_secret": secrets.seal("demo", self.issuer, "client_secret", CLIENT_SECRET),
                                  **fields}
        return IdentityProvider("demo", self.issuer, **values)

    def claims(self, **claims: Any) -> dict[str, Any]:
        """An ID token's claims for this client, now; a claim given as None is left out."""
        now = int(time.time())
        base = {"iss": self.issuer, "sub": "carol-upstream-1", "aud": CLIENT_ID, "iat": now, "exp": now + 300,
                "nonce": NONCE, "email": "carol@democorp.example", "email_verified": True, "name": "Carol Upstream"}
        return {k: v for k, v in {**base, **claims}.items() if v is not None}

    def id_token(self, header: dict[str, Any] | None = None, key: Any = None, **claims: Any) -> str:
        h = {"alg": "RS256", "kid": self.kid, "typ": "JWT", **(header or {})}
        return sign({k: v for k, v in h.items() if v is not None}, self.claims(**claims), key or self.key)

    def answer_token(self, id_token: str | None = None, *, status: int = 200, **extra: Any) -> None:
        """The token endpoint's next answers: an ID token (a fresh valid one by default) and the access token."""
        body = {"access_token": ACCESS_TOKEN, "token_type": "Bearer", "expires_in": 300,
                "id_token": id_token if id_token is not None else self.id_token(), **extra}
        self.server.post_answers[f"/{self.name}/token"] = [Route(json.dumps(body).encode(), status)]

    def answer_userinfo(self, **claims: Any) -> None:
        self.server.routes[f"/{self.name}/userinfo"] = Route(json.dumps(claims).encode())

    def token_requests(self) -> list[tuple[dict[str, str], dict[str, str]]]:
        """What reached the token endpoint: (form, headers) of each POST."""
        return [(dict(parse_qsl(body.decode())), headers)
                for (path, _, body), headers in zip(self.server.posts, self.server.post_headers, strict=True)
                if path == f"/{self.name}/token"]

    def logout_token(self, header: dict[str, Any] | None = None, **claims: Any) -> str:
        now = int(time.time())
        base = {"iss": self.issuer, "aud": CLIENT_ID, "iat": now, "exp": now + 120, "jti": str(uuid.uuid4()),
                "sub": "carol-upstream-1", "sid": "upstream-session-1",
                "events": {"http://schemas.openid.net/event/backchannel-logout": {}}}
        h = {"alg": "RS256", "kid": self.kid, "typ": "logout+jwt", **(header or {})}
        return sign({k: v for k, v in h.items() if v is not None},
                    {k: v for k, v in {**base, **claims}.items() if v is not None}, self.key)


def basic_credentials(headers: dict[str, str]) -> tuple[str, str]:
    """The client id and secret of an Authorization: Basic header (RFC 6749 2.3.1: form-urlencoded inside)."""
    from urllib.parse import unquote_plus

    scheme, _, value = headers.get("Authorization", "").partition(" ")
    assert scheme == "Basic", headers
    user, _, password = base64.b64decode(value).decode().partition(":")
    return unquote_plus(user), unquote_plus(password)


@lru_cache(maxsize=1)
def other_keys() -> dict[str, Any]:
    """Keys the provider never published: another RSA key, an EC key, and the client secret as an HMAC key."""
    return {"rsa": RSAKey.generate_key(2048, parameters={"kid": "op-key-1"}),
            "ec": ECKey.generate_key("P-256", parameters={"kid": "op-key-1"}),
            "hmac": OctKey.import_key(CLIENT_SECRET.encode())}
