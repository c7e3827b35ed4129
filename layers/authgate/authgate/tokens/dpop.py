"""DPoP proofs (RFC 9449): every check of section 4.3, in order, cheapest first; the `jti` write last.

A proof is a compact JWS in the one `DPoP` header of a request (4.3 steps 1-2). Its header
has `typ` `dpop+jwt` (step 4), an asymmetric `alg` from ALGORITHMS (step 5: never `none`, never
HS*), and `jwk`, a public key only (step 7). The signature verifies with that key (step 6);
`htm` is the request's method (step 8); `htu` is the request's URI without query and fragment,
both compared after RFC 3986 6.2.2 / 6.2.3 normalisation (step 9); `iat` lies within the
deployment's leeway either way (step 11, section 11.1); `ath` is the SHA-256 of the access
token at a resource (step 12, section 7); `nonce` when the server asks for nonces (step 10,
section 8). The `jti` is single-use: one conditional write to ReplayTable for the window a proof
is acceptable in (section 11.1), made only once everything else holds.

Written on tokens.jwa / tokens.jwk (cryptography) rather than a JOSE library: the layer ships no
PyJWT, and a warm check is a JSON parse, one cached key lookup and one signature verification.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Collection
from typing import TYPE_CHECKING, Any, Literal, NamedTuple
from urllib.parse import urlsplit, urlunsplit

from authgate import base64url
from authgate.caches import BoundedCache, cached
from authgate.single_use.errors import Replayed
from authgate.stores.replay import ReplayGuard, dpop_key
from authgate.tokens import jose_header, jwa, jwk
from authgate.tokens.jws import segment_json
from authgate.tokens.jwt_profile import DPOP_ALGORITHMS
from authgate.tokens.numeric_date import numeric_date

if TYPE_CHECKING:
    from authgate.request_protocol import RequestView

# RFC 9449 4.2: the JOSE header's typ.
PROOF_TYPE = "dpop+jwt"
# The algorithms a proof may use (RFC 9449 4.3 step 5, 5.1 dpop_signing_alg_values_supported).
ALGORITHMS = DPOP_ALGORITHMS
# The key types each algorithm takes (RFC 7518 3.1, RFC 8037 3.1).
ALGORITHM_KEY_TYPES = {"ES256": "EC", "EdDSA": "OKP", "RS256": "RSA", "PS256": "RSA"}
# A proof carries one public key and a few short claims: 8 KiB is far above any honest proof
# (an RSA-4096 jwk is ~750 bytes) and bounds the work a hostile header can ask for.
MAX_PROOF_LENGTH = 8192
MAX_JTI_LENGTH = 256
_COMPACT = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")
# `ath` is base64url SHA-256, 43 characters (RFC 9449 4.2); a server nonce is base64url too
# (tokens.dpop_nonce): anything else is refused before a constant-time comparison sees it.
_ATH = re.compile(r"[A-Za-z0-9_-]{43}")
_NONCE = re.compile(r"[A-Za-z0-9_-]{1,128}")
ProofErrorCode = Literal["invalid_dpop_proof", "use_dpop_nonce"]


class ProofError(Exception):
    """The proof is not acceptable: `invalid_dpop_proof`, or `use_dpop_nonce` (RFC 9449 7.1, 8)."""

    def __init__(self, detail: str, code: ProofErrorCode = "invalid_dpop_proof") -> None:
        super().__init__(detail)
        self.detail = detail
        self.code = code


# What a proof whose header fails jose_header's checks is told, by the member that failed.
_HEADER_REFUSALS: dict[jose_header.Member, str] = {
    "typ": "The DPoP proof's typ must be dpop+jwt (RFC 9449 4.2).",
    "alg": f"The DPoP proof's alg must be one of {', '.join(ALGORITHMS)} (RFC 9449 4.3).",
    "crit": "The DPoP proof has a crit header this server does not understand (RFC 7515 4.1.11).",
}
# iat may lie ahead of our clock by the leeway, but at least 10 s and never more than 60 s (FAPI 2.0 5.3.2.1 item 13).
MIN_FUTURE_IAT, MAX_FUTURE_IAT = 10, 60


class Proof(NamedTuple):
    """A verified proof: the thumbprint of its key (RFC 7638, for `cnf.jkt`) and its claims."""

    jkt: str
    jti: str
    iat: int
    alg: str
    nonce: str | None = None


def proof_header(request: RequestView) -> str | None:
    """The request's one DPoP header, or None without one; ProofError for two (RFC 9449 4.3 step 1)."""
    values = request.headers.get_all("dpop")
    if len(values) > 1:
        raise ProofError("The request carries more than one DPoP header (RFC 9449 4.3).")
    return values[0] if values else None


def access_token_hash(token: str) -> str:
    """`ath`: base64url SHA-256 of the ASCII access token (RFC 9449 4.2)."""
    return base64url.encode(hashlib.sha256(token.encode("ascii", "replace")).digest())


@cached(maxsize=256)
def normalized_uri(uri: str) -> str | None:
    """An http(s) URI without query and fragment, normalised per RFC 3986 6.2.2 and 6.2.3; None if not one.

    Scheme and host lower-cased, the scheme's default port dropped, an empty path made `/`,
    percent-encodings upper-cased and unreserved ones decoded, dot segments removed.
    """
    try:
        parts = urlsplit(uri.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    if port is not None and port != {"http": 80, "https": 443}[scheme]:
        host = f"{host}:{port}"
    return urlunsplit((scheme, host, _normalized_path(parts.path), "", ""))


_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")


def _normalized_path(path: str) -> str:
    def one(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else "%" + match.group(1).upper()

    path = _PERCENT.sub(one, path) or "/"
    # RFC 3986 5.2.4 remove_dot_segments, on whole segments.
    out: list[str] = []
    for segment in path.split("/")[1:]:
        if segment == "..":
            if out:
                out.pop()
        elif segment != ".":
            out.append(segment)
    if path.endswith(("/.", "/..")):
        out.append("")
    return "/" + "/".join(out)


def check_proof(proof: str, *, method: str, uri: str, now: int, leeway: int,
                access_token: str | None = None, nonce: Any = None,
                algorithms: Collection[str] = ALGORITHMS) -> Proof:
    """Verify `proof` for a request (RFC 9449 4.3 steps 2-12, all but the `jti` write); ProofError if not.

    `uri` is the request's URI (its query and fragment are ignored); `access_token` is given at a
    resource (step 12); `nonce`, when given, is the deployment's nonce checker (tokens.dpop_nonce);
    `algorithms` narrows step 5 for a client's profile (FAPI 2.0 5.4: PS256, ES256, EdDSA).
    """
    # Step 2-3: one well-formed compact JWS.
    if len(proof) > MAX_PROOF_LENGTH or not _COMPACT.fullmatch(proof):
        raise ProofError("The DPoP proof is not a compact JWS (RFC 9449 4.3).")
    header_segment, payload_segment, signature_segment = proof.split(".")
    # Steps 4, 5 and 7: a client signs every proof with one key, so its header segment repeats:
    # what the header says is checked once and remembered (bounded, least recently used out).
    alg, jkt, key = _header(header_segment)
    if alg not in algorithms:
        raise ProofError(f"The DPoP proof's alg must be one of {', '.join(algorithms)} for this client "
                         "(FAPI 2.0 5.4).")
    # Step 6: the signature, with that key.
    try:
        signature = base64url.decode(signature_segment)
    except ValueError:
        raise ProofError("The DPoP proof's signature is not base64url.") from None
    if not jwa.verify(alg, key, f"{header_segment}.{payload_segment}".encode("ascii"), signature):
        raise ProofError("The DPoP proof's signature does not verify with its jwk.")
    claims = segment_json(payload_segment)
    if claims is None:
        raise ProofError("The DPoP proof's payload is not a JSON object.")
    jti = claims.get("jti")
    if not isinstance(jti, str) or not 0 < len(jti) <= MAX_JTI_LENGTH:
        raise ProofError("The DPoP proof's jti must be a string of 1 to 256 characters (RFC 9449 4.2).")
    # Step 8: htm.
    if claims.get("htm") != method:
        raise ProofError(f"The DPoP proof's htm does not match the request method {method}.")
    # Step 9: htu, both sides normalised, query and fragment ignored.
    htu = claims.get("htu")
    expected = normalized_uri(uri)
    if not isinstance(htu, str) or expected is None or normalized_uri(htu) != expected:
        raise ProofError(f"The DPoP proof's htu does not match the request URI {expected}.")
    # Step 11: iat within the window, both ways (section 11.1).
    iat = numeric_date(claims.get("iat"))
    if not isinstance(iat, int):
        raise ProofError("The DPoP proof's iat must be an integer (RFC 9449 4.2).")
    if iat > now + min(max(leeway, MIN_FUTURE_IAT), MAX_FUTURE_IAT):
        raise ProofError("The DPoP proof was issued in the future (iat).")
    if iat < now - leeway:
        raise ProofError("The DPoP proof is too old (iat); make a new proof for each request.")
    # Step 10: the server's nonce, when it asks for one.
    proof_nonce = claims.get("nonce")
    if nonce is not None:
        if not isinstance(proof_nonce, str) or not _NONCE.fullmatch(proof_nonce):
            raise ProofError("This server requires a DPoP nonce; use the DPoP-Nonce header's value.",
                             "use_dpop_nonce")
        if not nonce.accepts(proof_nonce, now):
            raise ProofError("The DPoP nonce is stale; use the DPoP-Nonce header's value.", "use_dpop_nonce")
    # Step 12: ath, at a resource.
    if access_token is not None:
        ath = claims.get("ath")
        if (not isinstance(ath, str) or not _ATH.fullmatch(ath)
                or not hmac.compare_digest(ath.encode("ascii"), access_token_hash(access_token).encode("ascii"))):
            raise ProofError("The DPoP proof's ath does not match the access token.")
    return Proof(jkt=jkt, jti=jti, iat=iat, alg=alg, nonce=proof_nonce if isinstance(proof_nonce, str) else None)


def use_once(proof: Proof, leeway: int, now: int) -> None:
    """Record the proof's `jti` for its window (RFC 9449 11.1); ProofError if it was seen before.

    The window ends `leeway` after `iat`, when `check_proof` stops accepting the proof anyway;
    `now` is the time the proof was judged by (not a second reading of the clock), so the `jti`
    is still held at every moment the proof was acceptable.
    """

    try:
        ReplayGuard().use(dpop_key(proof.jkt, proof.jti), proof.iat + leeway + 1, now=now)
    except Replayed:
        raise ProofError("The DPoP proof was already used (jti); make a new proof for each request.") from None


def _check_header(header_segment: str) -> tuple[str, str, Any]:
    header = segment_json(header_segment)
    if header is None:
        raise ProofError("The DPoP proof's header is not a JSON object.")
    # Steps 4 and 5: typ, an asymmetric algorithm we support (never none, never a MAC), no crit.
    try:
        alg = jose_header.checked_alg(header, ALGORITHMS, typ=PROOF_TYPE)
    except jose_header.HeaderRejected as rejected:
        raise ProofError(_HEADER_REFUSALS[rejected.member]) from None
    # Step 7 (before 6, which needs the key): a public key of alg's type.
    key_jwk = header.get("jwk")
    if not isinstance(key_jwk, dict):
        raise ProofError("The DPoP proof's header has no jwk (RFC 9449 4.2).")
    if key_jwk.get("kty") != ALGORITHM_KEY_TYPES[alg]:
        raise ProofError(f"The DPoP proof's jwk is not a key for {alg}.")
    jkt, key = _public_key(key_jwk)
    return alg, jkt, key


# A client signs every proof with one key, so its header segment and key repeat: the parsed
# header, public key and thumbprint are kept (bounded, least recently used out), and a warm proof
# check is one signature verification plus the claims.
_KEY_CACHE_SIZE = 256
_HEADERS: BoundedCache[str, tuple[str, str, Any]] = BoundedCache(_KEY_CACHE_SIZE)
_KEYS: BoundedCache[str, tuple[str, Any]] = BoundedCache(_KEY_CACHE_SIZE)


def _header(header_segment: str) -> tuple[str, str, Any]:
    entry = _HEADERS.get(header_segment)
    if entry is None:
        entry = _check_header(header_segment)
        _HEADERS.put(header_segment, entry)
    return entry


def _public_key(key_jwk: dict[str, Any]) -> tuple[str, Any]:
    try:
        members = jwk.THUMBPRINT_MEMBERS[str(key_jwk["kty"])]
        if any(member in key_jwk for member in jwk.PRIVATE_MEMBERS):
            raise ValueError("private")
        cache_key = json.dumps([key_jwk.get(m) for m in members])
    except (KeyError, ValueError, TypeError):
        raise ProofError("The DPoP proof's jwk must be a public key (RFC 9449 4.3).") from None
    hit = _KEYS.get(cache_key)
    if hit is not None:
        return hit
    try:
        entry = (jwk.thumbprint(key_jwk), jwk.public_proof_key(key_jwk))
    except (ValueError, TypeError):
        raise ProofError("The DPoP proof's jwk is not a usable public key (RSA 2048+, P-256 or Ed25519).") from None
    _KEYS.put(cache_key, entry)
    return entry
