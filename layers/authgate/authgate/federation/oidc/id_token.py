"""An upstream ID token, validated completely (OpenID Connect Core 1.0 3.1.3.7, 2; RFC 8725).

In order, each failure an UpstreamRefused with its own reason: a compact JWS of at most
MAX_TOKEN characters with JSON header and claims; `alg` one an IdP signs with here (RS256,
PS256, ES256, EdDSA: never `none`, never an HMAC whose key would be the client secret; RFC 8725
3.1), no `crit`, and no `typ` of another kind of JWT (a logout token is never an ID token:
Back-Channel Logout 1.0 2.4); the signature by a key of the provider (the record's inline keys or
JWKS URI when it has them, else the JWKS URI of its discovery document; a `kid` the cached set
lacks refetches it, bounded: tokens.idp_keys); `iss` the provider's issuer exactly; `aud` names
the record's client id, and with more than one audience `azp` must be there and be that client
id (`azp`, when present, always must); `exp` not passed and `iat` not in the future, both within
the stack's leeway; `sub` a string of 1 to 255 characters (2). What only an ID token of a sign-in
must hold follows in `validate`: the `nonce` this browser's request sent (constant time), the
`at_hash` of the access token when the IdP sends one (3.1.3.8), and `auth_time` within `max_age`
when the request asked for it (3.1.2.1).
"""

from __future__ import annotations

import hashlib
import hmac
from typing import TYPE_CHECKING, Any

from authgate import base64url
from authgate.federation.errors import UpstreamRefused
from authgate.settings import get_settings
from authgate.tokens import client_keys, jose_header, jwa
from authgate.tokens.idp_keys import KeysUnavailable, idp_key_cache
from authgate.tokens.jws import segment_bytes, segment_json
from authgate.tokens.numeric_date import numeric_date

if TYPE_CHECKING:
    from authgate.federation.oidc.discovery import Provider
    from authgate.identity_providers.model import IdentityProvider

# Entra ID's tokens with many groups run to several KB; 32 KB bounds what is parsed and verified.
MAX_TOKEN = 32 * 1024
ALGORITHMS = tuple(client_keys.IDP_ALGORITHMS)
# RFC 7515 4.1.9: JWT (or none) for an ID token.
ID_TOKEN_TYPES = ("jwt",)
# Core 3.1.3.8: at_hash is the left half of the hash the JWS alg names; SHA-512 for Ed25519's EdDSA.
_HASHES = {"RS256": "sha256", "PS256": "sha256", "ES256": "sha256", "EdDSA": "sha512", "Ed25519": "sha512"}


def verified_claims(idp: IdentityProvider, provider: Provider, token: str, *, now: int,
                    types: tuple[str, ...] = ID_TOKEN_TYPES, what: str = "id_token") -> dict[str, Any]:
    """The claims of a JWT the provider signed for this client, once signature, iss, aud, azp, exp and iat hold.

    `types` are the `typ` values accepted (lower case, without "application/"); an absent `typ` always is.
    """
    if len(token) > MAX_TOKEN or token.count(".") != 2:
        raise UpstreamRefused(f"{what}_malformed", "not a compact JWS (RFC 7515 7.1)")
    head, body, tail = token.split(".")
    header, claims = segment_json(head), segment_json(body)
    try:
        signature: bytes | None = segment_bytes(tail)
    except ValueError:
        signature = None
    if header is None or claims is None or signature is None:
        raise UpstreamRefused(f"{what}_malformed", "not a compact JWS with JSON header and claims (RFC 7515 7.1)")
    if "typ" in header and not any(jose_header.typ_is(header, t) for t in types):
        raise UpstreamRefused(f"{what}_type_invalid", f"typ {str(header.get('typ'))[:40]!r}")
    try:
        alg = jose_header.checked_alg(header, ALGORITHMS)
    except jose_header.HeaderRejected as exc:
        raise UpstreamRefused(f"{what}_algorithm_refused", f"{exc.member} {str(header.get(exc.member))[:40]!r}"
                              ) from None
    _check_signature(idp, provider, header, alg, f"{head}.{body}".encode("ascii"), signature, what)
    _check_issuer_and_audience(claims, provider, idp.client_id, what)
    leeway = get_settings().leeway
    exp, iat = numeric_date(claims.get("exp")), numeric_date(claims.get("iat"))
    if exp is None or iat is None:
        raise UpstreamRefused(f"{what}_malformed", "exp and iat must be NumericDates (Core 2)")
    if exp <= now - leeway:
        raise UpstreamRefused(f"{what}_expired", f"exp {int(exp)} is past (now {now}, leeway {leeway} s)")
    if iat > now + leeway:
        raise UpstreamRefused(f"{what}_time_invalid", f"iat {int(iat)} is in the future (now {now})")
    return claims


def _check_signature(idp: IdentityProvider, provider: Provider, header: dict[str, Any], alg: str, signed: bytes,
                     signature: bytes, what: str) -> None:
    kid = header.get("kid")
    if kid is not None and not isinstance(kid, str):
        raise UpstreamRefused(f"{what}_signature_invalid", "kid is not a string")
    try:
        keys = idp_key_cache().keys(idp, kid) if idp.jwks or idp.jwks_uri \
            else idp_key_cache().keys_at(provider.jwks_uri, kid)
    except KeysUnavailable as exc:
        raise UpstreamRefused("keys_unavailable", str(exc)) from None
    if not any(jwa.verify(alg, key, signed, signature)
               for key in client_keys.candidates(keys, alg, kid, client_keys.IDP_ALGORITHMS)):
        raise UpstreamRefused(f"{what}_signature_invalid", f"no key of the provider verifies it (kid {str(kid)[:64]!r})")


def _check_issuer_and_audience(claims: dict[str, Any], provider: Provider, client_id: str, what: str) -> None:
    if claims.get("iss") != provider.issuer:
        raise UpstreamRefused(f"{what}_issuer_invalid", f"iss {str(claims.get('iss'))[:200]!r} is not "
                                                        f"{provider.issuer!r}")
    aud = claims.get("aud")
    audiences = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
    if client_id not in audiences:
        raise UpstreamRefused(f"{what}_audience_invalid", f"aud {str(aud)[:200]!r} does not name {client_id!r}")
    azp = claims.get("azp")
    if (len(audiences) > 1 or azp is not None) and azp != client_id:
        raise UpstreamRefused(f"{what}_audience_invalid", f"azp {str(azp)[:200]!r} is not {client_id!r} "
                                                          f"(aud {str(aud)[:200]!r})")


def validate(idp: IdentityProvider, provider: Provider, token: str, *, nonce: str, now: int,
             access_token: str = "", max_age: int | None = None) -> dict[str, Any]:
    """The claims of a sign-in's ID token: `verified_claims`, then sub, nonce, at_hash and auth_time (max_age)."""
    claims = verified_claims(idp, provider, token, now=now)
    sub = claims.get("sub")
    if not isinstance(sub, str) or not 0 < len(sub) <= 255:
        raise UpstreamRefused("id_token_malformed", "sub must be a string of 1 to 255 characters (Core 2)")
    sent = claims.get("nonce")
    if not isinstance(sent, str) or not nonce or not hmac.compare_digest(sent.encode(), nonce.encode()):
        raise UpstreamRefused("nonce_mismatch", "the ID token's nonce is not this sign-in's"
                              if isinstance(sent, str) else "the ID token has no nonce")
    at_hash = claims.get("at_hash")
    if at_hash is not None and access_token:
        alg = str(segment_json(token.split(".", 1)[0]).get("alg"))  # type: ignore[union-attr]
        digest = hashlib.new(_HASHES[alg], access_token.encode("ascii")).digest()
        if not isinstance(at_hash, str) or not hmac.compare_digest(at_hash, base64url.encode(digest[:len(digest) // 2])):
            raise UpstreamRefused("at_hash_mismatch", "at_hash is not the access token's (Core 3.1.3.8)")
    if max_age is not None:
        auth_time = numeric_date(claims.get("auth_time"))
        if auth_time is None:
            raise UpstreamRefused("auth_time_missing", "max_age was asked and the ID token has no auth_time")
        if auth_time + max_age < now - get_settings().leeway:
            raise UpstreamRefused("max_age_exceeded", f"auth_time {int(auth_time)} is more than {max_age} s ago")
    return claims
