"""Access-token validation as RFC 9068 section 4 asks of a resource server: all local, no I/O per token.

Verified tokens are remembered per warm function (docs/tokens-and-keys.md, "The bearer guard");
revocation, the client and scope are the guard's (tokens.guard).
"""

from __future__ import annotations

import re
from typing import Any

from authgate.caches import BoundedCache, cached
from authgate.settings import get_settings
from authgate.stores.signing_keys import KeyStore
from authgate.tokens import jose_header, jwa
from authgate.tokens.bearer import invalid_token
from authgate.tokens.jws import segment_bytes, segment_json
from authgate.tokens.jwt_profile import REQUIRED_CLAIMS, TOKEN_TYPE, actor_chain_ok
from authgate.tokens.numeric_date import numeric_date
from authgate.tokens.principal import Principal
from authgate.tokens.verification_keys import ALLOWED_ALGS, KeyCache, VerificationKey

# jku/x5u/jwk/x5c would let the token name its own key; crit names extensions we do not
# implement (RFC 7515 section 4.1.11). Our tokens carry exactly these three.
ALLOWED_HEADER = frozenset({"alg", "typ", "kid"})
_KID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
MAX_TOKEN_LENGTH = 4096
# Verified tokens a warm function remembers (about 2 KB each), oldest forgotten first.
VERIFIED_CACHE_SIZE = 1024


def _number(claims: dict[str, Any], name: str) -> int | float:
    value = numeric_date(claims.get(name))
    if value is None:
        raise invalid_token(f"The {name} claim is not a NumericDate.")
    return value


class AccessTokenValidator:
    """Validates RFC 9068 access tokens against the published keys."""

    def __init__(self, keys: KeyCache, leeway: int) -> None:
        self.keys = keys
        self.leeway = leeway
        # (token, issuer, audience) -> (principal, kid, the key object that verified it).
        self._verified: BoundedCache[tuple[str, str, str], tuple[Principal, str, VerificationKey]] = BoundedCache(
            VERIFIED_CACHE_SIZE)

    def validate(self, token: str, *, issuer: str, audience: str, now: int) -> Principal:
        """The token's principal, or ApiError invalid_token saying why not."""
        entry = (token, issuer, audience)
        remembered = self._verified.peek(entry)
        if remembered is not None:
            principal, kid, key = remembered
            if self.keys.get(kid, now) is key and now < principal.expires_at + self.leeway:
                return principal
            self._verified.pop(entry)
        principal, kid, key = self._verify(token, issuer=issuer, audience=audience, now=now)
        self._verified.put(entry, (principal, kid, key))
        return principal

    def signed_here(self, kid: object, alg: str, signing_input: bytes, signature: bytes, now: int) -> bool:
        """Whether `signature` is by the published key of this stack that `kid` names, a key of algorithm `alg`:
        the check of a JWS this stack signed other than an access token (an ID token coming back to it)."""
        key = self.keys.get(kid, now) if isinstance(kid, str) else None
        return key is not None and key.alg == alg and jwa.verify(alg, key.key, signing_input, signature)

    def verify(self, token: str, *, issuer: str, audience: str, now: int) -> Principal:
        """`validate` without the verified-token cache: every check, every time."""
        return self._verify(token, issuer=issuer, audience=audience, now=now)[0]

    def _verify(self, token: str, *, issuer: str, audience: str, now: int) -> tuple[Principal, str, VerificationKey]:
        if len(token) > MAX_TOKEN_LENGTH or token.count(".") != 2:
            raise invalid_token("The access token is not a JWT.")
        head, body, tail = token.split(".")
        # The compact serialization is parsed here (strict base64url, RFC 7515 7.1), so every
        # header parameter is judged by our allow-list before any library acts on the token.
        header = segment_json(head)
        if header is None:
            raise invalid_token("The access token is not a JWT.")
        unexpected = sorted(set(header) - ALLOWED_HEADER)
        if unexpected:
            raise invalid_token(f"The token header parameter {unexpected[0]} is not accepted.")
        alg = header.get("alg")
        if not isinstance(alg, str):
            raise invalid_token("The token header names no algorithm.")
        if alg not in ALLOWED_ALGS:
            raise invalid_token(f"The algorithm {str(alg)[:20]} is not accepted.")
        if not jose_header.typ_is(header, TOKEN_TYPE):
            raise invalid_token("The token is not an access token (typ must be at+jwt).")
        kid = header.get("kid")
        if not isinstance(kid, str) or not _KID.fullmatch(kid):
            raise invalid_token("The token does not name a valid signing key.")
        key = self.keys.get(kid, now)
        if key is None:
            raise invalid_token("The token was signed by an unknown key.", internal=f"kid={kid}")
        if key.alg != alg:
            raise invalid_token(f"The algorithm {alg} does not match the signing key.")
        try:
            segment_bytes(body)
            signature = segment_bytes(tail)
        except ValueError:
            raise invalid_token("The access token is not a JWT.") from None
        if not jwa.verify(alg, key.key, f"{head}.{body}".encode("ascii"), signature):
            raise invalid_token("The token signature is invalid.")
        claims = segment_json(body)
        if claims is None:
            raise invalid_token("The token claims are not a JSON object.")
        return self._check_claims(claims, issuer=issuer, audience=audience, now=now), kid, key

    def _check_claims(self, claims: dict[str, Any], *, issuer: str, audience: str, now: int) -> Principal:
        missing = [name for name in REQUIRED_CLAIMS if name not in claims]
        if missing:
            raise invalid_token(f"The token lacks the {missing[0]} claim.")
        if claims["iss"] != issuer:
            raise invalid_token("The token was issued by another issuer.")
        aud = claims["aud"]
        audiences = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
        if audience not in audiences:
            raise invalid_token("The token is not meant for this resource (aud).")
        exp, iat = _number(claims, "exp"), _number(claims, "iat")
        # RFC 7519 4.1.4: refused "on or after" the expiry (plus the leeway).
        if now >= exp + self.leeway:
            raise invalid_token("The access token expired.")
        if iat > now + self.leeway:
            raise invalid_token("The token was issued in the future (iat).")
        if "nbf" in claims and _number(claims, "nbf") > now + self.leeway:
            raise invalid_token("The token is not valid yet (nbf).")
        strings = {name: claims[name] for name in ("sub", "jti", "client_id", "scope", "tenant")}
        grant_id = claims.get("grant_id")
        if any(not isinstance(v, str) for v in strings.values()) or not (grant_id is None or isinstance(grant_id, str)):
            raise invalid_token("The token claims have the wrong types.")
        cnf = claims.get("cnf")
        jkt = cnf.get("jkt") if isinstance(cnf, dict) else None
        if cnf is not None and not isinstance(jkt, str):
            # RFC 7800 3.1: a confirmation we cannot check must not be ignored.
            raise invalid_token("The token's cnf claim is not a DPoP key thumbprint (RFC 9449 6.1).")
        acr = claims.get("acr", "")
        auth_time = numeric_date(claims["auth_time"]) if "auth_time" in claims else None
        if not isinstance(acr, str) or ("auth_time" in claims and auth_time is None):
            raise invalid_token("The token's acr or auth_time claim has the wrong type (RFC 9068 2.2.1).")
        act = claims.get("act")
        if act is not None and not actor_chain_ok(act):
            raise invalid_token("The token's act claim is not a chain of actors (RFC 8693 4.1).")
        username = claims.get("username", "")
        if not isinstance(username, str):
            raise invalid_token("The token's username claim is not a string.")
        details = claims.get("authorization_details")
        if details is not None and not (isinstance(details, list) and all(
                isinstance(entry, dict) and isinstance(entry.get("type"), str) for entry in details)):
            # A limit we cannot read must not be ignored (as cnf above): never a token without its limits.
            raise invalid_token("The token's authorization_details claim is not an array of typed objects "
                                "(RFC 9396 9.1).")
        return Principal(subject=strings["sub"], client_id=strings["client_id"], tenant=strings["tenant"],
                         scopes=frozenset(strings["scope"].split()), jti=strings["jti"], grant_id=grant_id,
                         expires_at=int(exp), jkt=jkt, issued_at=int(iat), acr=acr,
                         auth_time=None if auth_time is None else int(auth_time), act=act,
                         authorization_details=None if details is None else tuple(details), username=username)


@cached
def default_validator() -> AccessTokenValidator:
    """The process's validator: the keys table's published keys, the configured leeway."""
    settings = get_settings()
    return AccessTokenValidator(KeyCache(lambda: KeyStore().published(), settings.jwks_max_age), settings.leeway)
