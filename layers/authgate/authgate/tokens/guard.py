"""The bearer guard (RFC 6750) used by every protected route: RFC 9068 access-token validation.

Order of checks: credentials in the request (RFC 6750 section 2.1, 3.1), JOSE header (alg
allow-list, typ at+jwt, only alg/typ/kid, known kid), signature, claims (exact iss, aud,
exp/nbf/iat with the leeway), revocation (one BatchGetItem for jti and grant), then scope.
Statuses: no credentials 401 without error; malformed request 400 invalid_request; any bad
token 401 invalid_token; missing scope 403 insufficient_scope. Each carries WWW-Authenticate.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from authgate.dependencies import cached
from authgate.errors import ApiError
from authgate.errors.render import base_url
from authgate.settings import get_settings
from authgate.stores.keys import PREVIOUS
from authgate.tokens import clock
from authgate.tokens.issue import TOKEN_TYPE, default_audience

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.stores.keys import KeyRecord

REALM = "api"
# Never none, never HS*: only the asymmetric algorithms this server signs with.
ALLOWED_ALGS = frozenset({"RS256", "ES256"})
# jku/x5u/jwk/x5c would let the token name its own key; crit names extensions we do not
# implement (RFC 7515 section 4.1.11). Our tokens carry exactly these three.
ALLOWED_HEADER = frozenset({"alg", "typ", "kid"})
REQUIRED_CLAIMS = ("iss", "sub", "aud", "exp", "iat", "jti", "client_id", "scope", "tenant")
# RFC 6750 section 2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
_TOKEN68 = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
_CREDENTIALS = re.compile(r"(\S+)(\s*)(.*?)\s*")
_KID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
MAX_TOKEN_LENGTH = 4096
# An unknown kid triggers a key reload at most this often per process, so junk kids cannot
# turn into a DynamoDB read per request. Known keys are reloaded every jwks_max_age anyway.
UNKNOWN_KID_REFRESH_SECONDS = 10
CLIENT_CACHE_SECONDS = 60


@dataclass(frozen=True)
class Principal:
    """Who an access token speaks for, once the guard has accepted it."""

    subject: str
    client_id: str
    tenant: str
    scopes: frozenset[str]
    jti: str
    grant_id: str | None
    expires_at: int


def challenge(error: str | None = None, description: str | None = None, scope: str | None = None) -> str:
    """The Bearer WWW-Authenticate value (RFC 6750 section 3)."""
    from authgate.errors.www_authenticate import bearer

    return bearer(REALM, error, description, scope)


def unauthenticated(detail: str = "The request carries no credentials; send Authorization: Bearer <token>.") -> ApiError:
    """401 with no error code: the request had no (supported) credentials (RFC 6750 section 3.1)."""
    return ApiError("unauthenticated", detail, headers={"WWW-Authenticate": challenge()})


def invalid_request(detail: str) -> ApiError:
    return ApiError("invalid_request", detail, headers={"WWW-Authenticate": challenge("invalid_request", detail)})


def invalid_token(detail: str, internal: str = "") -> ApiError:
    return ApiError("invalid_token", detail, internal=internal,
                    headers={"WWW-Authenticate": challenge("invalid_token", detail)})


def insufficient_scope(required: str) -> ApiError:
    detail = f"The access token lacks the scope {required}."
    return ApiError("insufficient_scope", detail,
                    headers={"WWW-Authenticate": challenge("insufficient_scope", detail, required)})


def extract_token(request: Request) -> str:
    """The bearer token of a request (RFC 6750 section 2), or the RFC 6750 section 3.1 error."""
    headers = request.headers.get_all("authorization")
    in_query = request.query.get("access_token", [])
    in_form: list[str] = []
    if request.content_type == "application/x-www-form-urlencoded" and request.body:
        in_form = [v for k, v in request.form() if k == "access_token"]
    if len(headers) > 1:
        raise invalid_request("The request carries more than one Authorization header.")
    from_header: str | None = None
    if headers and headers[0].strip():
        match = _CREDENTIALS.fullmatch(headers[0].strip())
        scheme, separator, credentials = match.groups() if match else ("", "", "")
        if scheme.lower() == "bearer":
            if not credentials:
                raise invalid_request("The Bearer credentials are empty.")
            if set(separator) != {" "} or not _TOKEN68.fullmatch(credentials):
                raise invalid_request("The Authorization header must be Bearer followed by exactly one token (token68 syntax).")
            from_header = credentials
    methods = (from_header is not None) + bool(in_query) + bool(in_form)
    if methods > 1 or len(in_query) > 1 or len(in_form) > 1:
        raise invalid_request("The access token was sent by more than one method; send it only in the Authorization header.")
    if from_header is not None:
        return from_header
    if in_query or in_form:
        # RFC 6750 2.2/2.3 methods are not supported (tokens in URLs end up in logs): treated
        # as an unsupported authentication method, which carries no error code (section 3.1).
        raise unauthenticated("The access_token parameter is not accepted; send Authorization: Bearer <token>.")
    raise unauthenticated()


@dataclass(frozen=True)
class VerificationKey:
    kid: str
    alg: str
    key: Any  # a cryptography public key
    # A previous key's retirement time is known in advance: from then on it verifies nothing,
    # even while an older copy of the key list is still cached.
    retires_at: int = 0


class KeyCache:
    """Published verification keys by kid, reloaded every `max_age` and, for an unknown kid,
    at most once per `refresh_interval` (bounded: junk kids cannot flood the keys table)."""

    def __init__(self, load: Callable[[], list[KeyRecord]], max_age: int,
                 refresh_interval: int = UNKNOWN_KID_REFRESH_SECONDS) -> None:
        self._load = load
        self._max_age = max_age
        self._refresh_interval = refresh_interval
        self._keys: dict[str, VerificationKey] = {}
        self._loaded_at: int | None = None
        self._lock = threading.Lock()
        self.loads = 0

    def get(self, kid: str, now: int) -> VerificationKey | None:
        with self._lock:
            stale = self._loaded_at is None or now - self._loaded_at >= self._max_age or now < self._loaded_at
            if stale or (kid not in self._keys and now - (self._loaded_at or 0) >= self._refresh_interval):
                self._reload(now)
            key = self._keys.get(kid)
            return None if key is None or (key.retires_at and now >= key.retires_at) else key

    def _reload(self, now: int) -> None:
        from jwt import PyJWK

        keys = {}
        for record in self._load():
            if record.alg in ALLOWED_ALGS:
                keys[record.kid] = VerificationKey(record.kid, record.alg, PyJWK(json.loads(record.public_jwk)).key,
                                                   record.retires_at if record.state == PREVIOUS else 0)
        self._keys, self._loaded_at = keys, now
        self.loads += 1


def _json_segment(segment: str) -> dict[str, Any] | None:
    """A base64url JSON object (a JOSE header), or None. Parsed here, not by PyJWT, so every
    header parameter is judged by our allow-list before any library acts on it."""
    try:
        value = json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))
    except (ValueError, binascii.Error):
        return None
    return value if isinstance(value, dict) else None


def _number(claims: dict[str, Any], name: str) -> int | float:
    value = claims.get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise invalid_token(f"The {name} claim is not a NumericDate.")
    return value


class Guard:
    """Validates RFC 9068 access tokens against published keys and the revocation list."""

    def __init__(self, keys: KeyCache, is_revoked: Callable[[str, str | None, int], bool], leeway: int) -> None:
        self.keys = keys
        self._is_revoked = is_revoked
        self.leeway = leeway

    def validate(self, token: str, *, issuer: str, audience: str) -> Principal:
        import jwt

        now = clock.now()
        if len(token) > MAX_TOKEN_LENGTH or token.count(".") != 2:
            raise invalid_token("The access token is not a JWT.")
        header = _json_segment(token.split(".", 1)[0])
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
        typ = header.get("typ")
        if not isinstance(typ, str) or typ.lower().removeprefix("application/") != TOKEN_TYPE:
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
            signed = jwt.PyJWS().decode_complete(token, key.key, algorithms=[key.alg])
            claims = json.loads(signed["payload"])
        except jwt.InvalidSignatureError:
            raise invalid_token("The token signature is invalid.") from None
        except (jwt.PyJWTError, ValueError):
            raise invalid_token("The access token is not a JWT.") from None
        if not isinstance(claims, dict):
            raise invalid_token("The token claims are not a JSON object.")
        return self._check_claims(claims, issuer=issuer, audience=audience, now=now)

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
        if now > exp + self.leeway:
            raise invalid_token("The access token expired.")
        if iat > now + self.leeway:
            raise invalid_token("The token was issued in the future (iat).")
        if "nbf" in claims and _number(claims, "nbf") > now + self.leeway:
            raise invalid_token("The token is not valid yet (nbf).")
        strings = {name: claims[name] for name in ("sub", "jti", "client_id", "scope", "tenant")}
        grant_id = claims.get("grant_id")
        if any(not isinstance(v, str) for v in strings.values()) or not (grant_id is None or isinstance(grant_id, str)):
            raise invalid_token("The token claims have the wrong types.")
        if self._is_revoked(strings["jti"], grant_id, now):
            raise invalid_token("The access token was revoked.")
        return Principal(subject=strings["sub"], client_id=strings["client_id"], tenant=strings["tenant"],
                         scopes=frozenset(strings["scope"].split()), jti=strings["jti"], grant_id=grant_id,
                         expires_at=int(exp))


class ClientFormats:
    """client_id -> error_format, cached CLIENT_CACHE_SECONDS (a miss costs one GetItem).

    None means the client no longer exists (or belongs to another environment)."""

    def __init__(self, lookup: Callable[[str], Any]) -> None:
        self._lookup = lookup
        self._cache: dict[str, tuple[int, str | None]] = {}

    def get(self, client_id: str, now: int) -> str | None:
        hit = self._cache.get(client_id)
        if hit is None or not 0 <= now - hit[0] < CLIENT_CACHE_SECONDS:
            client = self._lookup(client_id)
            hit = (now, client.error_format if client is not None else None)
            if len(self._cache) > 10_000:  # bounded: a warm function sees a few hundred clients
                self._cache.clear()
            self._cache[client_id] = hit
        return hit[1]


@cached
def default_guard() -> Guard:
    from authgate.stores.keys import KeyStore
    from authgate.stores.revocations import RevocationStore

    settings = get_settings()
    return Guard(KeyCache(lambda: KeyStore().published(), settings.jwks_max_age),
                 lambda jti, grant_id, now: RevocationStore().is_revoked(jti, grant_id, now),
                 settings.leeway)


@cached
def client_formats() -> ClientFormats:
    from authgate.stores.clients import ClientStore

    return ClientFormats(lambda client_id: ClientStore().get(client_id))


def validate_access_token(token: str, *, issuer: str, audience: str | None = None) -> Principal:
    """Validate a bare token (no request): for introspection (RFC 7662) and tools."""
    return default_guard().validate(token, issuer=issuer, audience=audience or default_audience(issuer))


def active_access_token(token: str, *, issuer: str) -> Principal | None:
    """The principal of `token` if it is a currently valid access token, else None (RFC 7662, RFC 7009).

    Storage failures still raise (503): "not active" must never stand in for "could not check".
    """
    if token.count(".") != 2:
        return None
    try:
        return validate_access_token(token, issuer=issuer)
    except ApiError as exc:
        if exc.code != "invalid_token":
            raise
        return None


def require_bearer(request: Request, scope: str, *, audience: str | None = None) -> Principal:
    """Validate the bearer token and the required scope(s), or raise ApiError with WWW-Authenticate.

    On success sets request.state["client_id"], ["tenant"] and ["error_format"]; the client's
    error format is known before the scope check, so a 403 is rendered in the client's shape.
    """
    token = extract_token(request)
    principal = validate_access_token(token, issuer=base_url(request), audience=audience)
    error_format = client_formats().get(principal.client_id, clock.now())
    if error_format is None:
        raise invalid_token("The client this token was issued to is not registered.",
                            internal=f"client_id={principal.client_id}")
    request.state["client_id"] = principal.client_id
    request.state["tenant"] = principal.tenant
    request.state["error_format"] = error_format
    required = scope.split()
    missing = [s for s in required if s not in principal.scopes]
    if missing:
        raise insufficient_scope(" ".join(required))
    return principal
