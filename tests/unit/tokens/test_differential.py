"""Differential test: authgate's access-token verification against PyJWT and joserfc (issue 20).

The same tokens (a corpus of known JOSE attacks plus Hypothesis-generated headers and claims,
signed by a real key) go through tokens.validation, `jwt.decode` (PyJWT) and joserfc's
`jwt.decode` with its claims registry; the same JWKs go through tokens.jwk, PyJWT's PyJWK and
joserfc's import_key. Every disagreement is listed in DISAGREEMENTS with the clause that makes
authgate's answer the right one (docs/tokens-and-keys.md, "Differences from PyJWT and joserfc");
a new disagreement, or a listed one that went away, fails the test. Both libraries are dev
dependencies only (scripts/check_artifacts.py keeps them out of the layer).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import warnings
from collections.abc import Callable
from typing import Any

import jwt as pyjwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from joserfc import jwt as jose_jwt
from joserfc.errors import JoseError
from joserfc.jwk import import_key

from authgate.errors import ApiError
from authgate.stores.signing_keys import KeyRecord
from authgate.tokens import jwk
from authgate.tokens.jws import der_to_raw
from authgate.tokens.validation import AccessTokenValidator
from authgate.tokens.verification_keys import KeyCache

ISS, AUD, KID = "https://as.example", "https://as.example/charges", "k1"
NOW = int(time.time())
RSA_KEY = rsa.generate_private_key(65537, 2048)
EC_KEY = ec.generate_private_key(ec.SECP256R1())
KEYS = {"RS256": RSA_KEY, "ES256": EC_KEY}


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def sign(alg: str, signing_input: bytes) -> bytes:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    if alg == "ES256":
        return der_to_raw(EC_KEY.sign(signing_input, ec.ECDSA(hashes.SHA256())))
    return RSA_KEY.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())


def claims(**changes: Any) -> dict[str, Any]:
    value = {"iss": ISS, "sub": "s", "aud": AUD, "exp": NOW + 600, "iat": NOW - 10, "jti": "j",
             "client_id": "c", "scope": "charges:read", "tenant": "t", **changes}
    return {k: v for k, v in value.items() if v is not None}


def header(alg: str = "RS256", **changes: Any) -> dict[str, Any]:
    value = {"alg": alg, "typ": "at+jwt", "kid": KID, **changes}
    return {k: v for k, v in value.items() if v is not None}


def raw(head: bytes | str, body: bytes | str, key_alg: str = "RS256", *, signature: bytes | None = None) -> str:
    """A token over raw segment text, signed by the real `key_alg` key (what only the issuer can make)."""
    h = head if isinstance(head, str) else b64(head)
    p = body if isinstance(body, str) else b64(body)
    signing_input = f"{h}.{p}".encode()
    return f"{h}.{p}.{b64(sign(key_alg, signing_input) if signature is None else signature)}"


def token(head: dict[str, Any], body: dict[str, Any], key_alg: str | None = None) -> str:
    return raw(json.dumps(head).encode(), json.dumps(body).encode(), key_alg or head.get("alg", "RS256"))


# ------------------------------------------------------------------------------- the three verifiers
def authgate(tok: str, alg: str) -> bool:
    record = KeyRecord(KID, "current", alg, "local", json.dumps(jwk.public_jwk(KEYS[alg].public_key(), KID, alg)),
                       NOW - 100, NOW - 100)
    validator = AccessTokenValidator(KeyCache(lambda: [record], 300), leeway=0)
    try:
        validator.verify(tok, issuer=ISS, audience=AUD, now=int(time.time()))
    except ApiError as error:
        assert error.code == "invalid_token" and error.status == 401
        return False
    return True


def pyjwt_accepts(tok: str, alg: str) -> bool:
    try:
        with warnings.catch_warnings():  # the suite makes warnings errors; a library's advice is not a verdict
            warnings.simplefilter("ignore")
            pyjwt.decode(tok, KEYS[alg].public_key(), algorithms=[alg], audience=AUD, issuer=ISS,
                         options={"require": ["exp", "iat", "iss", "aud"]})
    except (pyjwt.PyJWTError, ValueError, TypeError, OverflowError, RecursionError):
        return False
    return True


def joserfc_accepts(tok: str, alg: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            key = import_key(KEYS[alg].public_key(), "RSA" if alg == "RS256" else "EC")
            decoded = jose_jwt.decode(tok, key, algorithms=[alg])
            registry = jose_jwt.JWTClaimsRegistry(iss={"essential": True, "value": ISS},
                                                  aud={"essential": True, "value": AUD}, exp={"essential": True})
            registry.validate(decoded.claims)
    except (JoseError, ValueError, TypeError, OverflowError, RecursionError):
        return False
    return True


def verdicts(tok: str, alg: str = "RS256") -> tuple[bool, bool, bool]:
    return authgate(tok, alg), pyjwt_accepts(tok, alg), joserfc_accepts(tok, alg)


# ------------------------------------------------------------------------------- the corpus
VALID = token(header(), claims())


def _hs256_with_public_key() -> str:
    pem = RSA_KEY.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    h, p = b64(json.dumps(header("HS256")).encode()), b64(json.dumps(claims()).encode())
    return f"{h}.{p}.{b64(hmac.new(pem, f'{h}.{p}'.encode(), hashlib.sha256).digest())}"


def _noncanonical_signature() -> str:
    h, p, s = VALID.split(".")
    last = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".index(s[-1])
    # RSA-2048: 256 octets are 342 characters + 4 spare bits; setting one keeps the same octets.
    return f"{h}.{p}.{s[:-1]}{'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'[last | 1]}"


def _padded() -> str:
    h, p, s = VALID.split(".")
    return f"{h}.{p}.{s}{'=' * (-len(s) % 4)}"


def _high_s_es256() -> str:
    tok = token(header("ES256"), claims())
    h, p, s = tok.split(".")
    sig = base64.urlsafe_b64decode(s + "==")
    n = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
    r, s_int = sig[:32], int.from_bytes(sig[32:], "big")
    return f"{h}.{p}.{b64(r + (n - s_int).to_bytes(32, 'big'))}"


def _attacker_signed_with_embedded_jwk() -> str:
    attacker = rsa.generate_private_key(65537, 2048)
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    head = header(jwk=jwk.public_jwk(attacker.public_key(), "x", "RS256"))
    h, p = b64(json.dumps(head).encode()), b64(json.dumps(claims()).encode())
    return f"{h}.{p}.{b64(attacker.sign(f'{h}.{p}'.encode(), padding.PKCS1v15(), hashes.SHA256()))}"


def _der_es256() -> str:
    from cryptography.hazmat.primitives import hashes

    head, body = json.dumps(header("ES256")).encode(), json.dumps(claims()).encode()
    signing_input = f"{b64(head)}.{b64(body)}".encode()
    return raw(head, body, "ES256", signature=EC_KEY.sign(signing_input, ec.ECDSA(hashes.SHA256())))


HEADER_JSON = json.dumps(header())
CLAIMS_JSON = json.dumps(claims())
DEEP = "[" * 1100 + "]" * 1100

# name -> (token, the key's alg)
CORPUS: dict[str, tuple[Callable[[], str], str]] = {
    "valid RS256": (lambda: VALID, "RS256"),
    "valid ES256": (lambda: token(header("ES256"), claims()), "ES256"),
    "alg none, no signature": (lambda: f"{b64(json.dumps(header('none')).encode())}.{b64(CLAIMS_JSON.encode())}.",
                               "RS256"),
    "alg None (case)": (lambda: token(header("None"), claims(), "RS256"), "RS256"),
    "alg confusion: HS256 keyed with the RSA public key": (_hs256_with_public_key, "RS256"),
    "alg confusion: ES256 header, RS256 signature": (lambda: token(header("ES256"), claims(), "RS256"), "RS256"),
    "alg PS256 on an RS256 key": (lambda: token(header("PS256"), claims(), "RS256"), "RS256"),
    "kid injection (path)": (lambda: token(header(kid="../../../dev/null"), claims()), "RS256"),
    "kid injection (SQL)": (lambda: token(header(kid="x' OR '1'='1"), claims()), "RS256"),
    "kid of another key": (lambda: token(header(kid="k2"), claims()), "RS256"),
    "crit exp": (lambda: token(header(crit=["exp"]), claims()), "RS256"),
    "crit b64, b64=false": (lambda: token(header(crit=["b64"], b64=False), claims()), "RS256"),
    "embedded jwk, attacker's key": (_attacker_signed_with_embedded_jwk, "RS256"),
    "embedded jwk, the real key": (lambda: token(header(jwk=jwk.public_jwk(RSA_KEY.public_key(), KID, "RS256")),
                                                 claims()), "RS256"),
    "jku": (lambda: token(header(jku="https://attacker.example/jwks"), claims()), "RS256"),
    "x5u": (lambda: token(header(x5u="https://attacker.example/cert"), claims()), "RS256"),
    "x5c": (lambda: token(header(x5c=["MIIB"]), claims()), "RS256"),
    "unknown header parameter": (lambda: token(header(foo="bar"), claims()), "RS256"),
    "typ JWT": (lambda: token(header(typ="JWT"), claims()), "RS256"),
    "typ application/at+jwt": (lambda: token(header(typ="application/at+jwt"), claims()), "RS256"),
    "no typ": (lambda: token(header(typ=None), claims()), "RS256"),
    "duplicate header name (kid)": (lambda: raw(HEADER_JSON[:-1] + ', "kid": "k1"}', CLAIMS_JSON.encode()),
                                    "RS256"),
    "duplicate claim (aud)": (lambda: raw(HEADER_JSON.encode(), CLAIMS_JSON[:-1] + f', "aud": "{AUD}"}}'), "RS256"),
    "whitespace in the JSON": (lambda: raw(json.dumps(header(), indent=2).encode(),
                                           json.dumps(claims(), indent=2).encode()), "RS256"),
    "whitespace in the token": (lambda: VALID.replace(".", ". ", 1), "RS256"),
    "newline in the signature": (lambda: VALID[:-10] + "\n" + VALID[-10:], "RS256"),
    "padded signature segment": (_padded, "RS256"),
    "non-canonical base64 (spare bits set)": (_noncanonical_signature, "RS256"),
    "unicode escapes in names": (lambda: raw(b'{"\\u0061lg":"RS256","typ":"at+jwt","kid":"k1"}',
                                             CLAIMS_JSON.encode()), "RS256"),
    "UTF-8 BOM before the header": (lambda: raw(b"\xef\xbb\xbf" + HEADER_JSON.encode(), CLAIMS_JSON.encode()),
                                    "RS256"),
    "UTF-16 header": (lambda: raw(HEADER_JSON.encode("utf-16"), CLAIMS_JSON.encode()), "RS256"),
    "lone surrogate in a claim": (lambda: raw(HEADER_JSON.encode(), CLAIMS_JSON.replace('"sub": "s"',
                                                                                        '"sub": "\\ud800"').encode()),
                                  "RS256"),
    "exp NaN": (lambda: raw(HEADER_JSON.encode(), CLAIMS_JSON.replace(str(NOW + 600), "NaN").encode()), "RS256"),
    "exp Infinity": (lambda: raw(HEADER_JSON.encode(), CLAIMS_JSON.replace(str(NOW + 600), "Infinity").encode()),
                     "RS256"),
    "exp 1e400 (overflows to infinity)": (lambda: raw(HEADER_JSON.encode(),
                                                      CLAIMS_JSON.replace(str(NOW + 600), "1e400").encode()),
                                          "RS256"),
    "exp beyond year 9999": (lambda: token(header(), claims(exp=10**12)), "RS256"),
    "exp with 5000 digits": (lambda: raw(HEADER_JSON.encode(), CLAIMS_JSON.replace(str(NOW + 600), "9" * 5000)
                                         .encode()), "RS256"),
    "exp a string": (lambda: token(header(), claims(exp=str(NOW + 600))), "RS256"),
    "exp true": (lambda: token(header(), claims(exp=True)), "RS256"),
    "exp fractional": (lambda: token(header(), claims(exp=NOW + 600.5)), "RS256"),
    "expired": (lambda: token(header(), claims(exp=NOW - 5)), "RS256"),
    "iat in the future": (lambda: token(header(), claims(iat=NOW + 3600)), "RS256"),
    "nbf in the future": (lambda: token(header(), claims(nbf=NOW + 3600)), "RS256"),
    "aud list with ours": (lambda: token(header(), claims(aud=[AUD, "other"])), "RS256"),
    "aud another": (lambda: token(header(), claims(aud="https://other.example")), "RS256"),
    "iss another": (lambda: token(header(), claims(iss="https://other.example")), "RS256"),
    "deeply nested claims": (lambda: raw(HEADER_JSON.encode(), CLAIMS_JSON[:-1] + f', "x": {DEEP}}}'), "RS256"),
    "claims an array": (lambda: raw(HEADER_JSON.encode(), b"[1]"), "RS256"),
    "four segments": (lambda: VALID + ".x", "RS256"),
    "ES256 DER signature": (_der_es256, "ES256"),
    "ES256 high-S (malleated) signature": (_high_s_es256, "ES256"),
    "missing RFC 9068 claims (client_id)": (lambda: token(header(), claims(client_id=None)), "RS256"),
}

# Every case where authgate's answer differs from a library's: (authgate, PyJWT, joserfc), and why
# authgate is right. The same table is in docs/tokens-and-keys.md.
A, R = True, False
OWN_HEADER = ("RFC 9068 2.1: this issuer writes exactly alg, typ and kid, so a token with any other header "
              "parameter was not minted here; RFC 8725 3.10: a key named by the token (jwk, jku, x5u, x5c) is "
              "never trusted. (RFC 7515 4 lets a recipient ignore a parameter it does not understand; refusing "
              "is the stricter, allowed choice.)")
DISAGREEMENTS: dict[str, tuple[tuple[bool, bool, bool], str]] = {
    "kid injection (path)": ((R, A, A), ("RFC 7515 4.1.4 / RFC 7517 4.5: kid selects one of the issuer's "
                             "published keys; a kid that names none has no key to verify with (the libraries "
                             "were handed the key and never read kid).")),
    "kid injection (SQL)": ((R, A, A), ("As above: kid is matched against published kids (syntax "
                            "[A-Za-z0-9._:-]{1,64}), never interpreted.")),
    "kid of another key": ((R, A, A), ("As above: a token names the key that signed it; another key's kid is a "
                           "mismatch, not a hint to ignore.")),
    "embedded jwk, the real key": ((R, A, R), OWN_HEADER),
    "jku": ((R, A, A), OWN_HEADER),
    "x5u": ((R, A, A), OWN_HEADER),
    "x5c": ((R, A, A), OWN_HEADER),
    "unknown header parameter": ((R, A, R), OWN_HEADER),
    "typ JWT": ((R, A, A), ("RFC 9068 4: the resource server MUST reject a typ other than at+jwt "
                "(application/at+jwt); RFC 8725 3.11 explicit typing.")),
    "no typ": ((R, A, A), "RFC 9068 4: typ at+jwt is required."),
    "padded signature segment": ((R, A, R), "RFC 7515 2 (base64url with all trailing '=' omitted) and 7.1."),
    "UTF-8 BOM before the header": ((R, A, A), ("RFC 7515 5.2 steps 3-4: the header is UTF-8 JSON; RFC 8259 8.1: "
                                    "implementations MUST NOT add a byte order mark.")),
    "UTF-16 header": ((R, A, A), ("RFC 7515 5.2 steps 3-4: the decoded header is UTF-8, never sniffed "
                      "(PyJWT's and joserfc's json.loads of bytes detects UTF-16/32).")),
    "lone surrogate in a claim": ((R, A, A), ("RFC 8259 8.2: an unpaired surrogate is not Unicode text; RFC 7519 "
                                  "7.2 step 10: the claims are UTF-8 JSON, which cannot carry one.")),
    "exp beyond year 9999": ((R, A, A), ("RFC 8259 6 lets an implementation limit the range of numbers it "
                             "accepts; this issuer writes exp = iat + the token lifetime, never a date past 9999.")),
    "exp a string": ((R, A, R), "RFC 7519 4.1.4: exp MUST be a number (PyJWT coerces the string with int())."),
    "missing RFC 9068 claims (client_id)": ((R, A, A), ("RFC 9068 2.2: client_id (with sub, jti, iat, ...) is "
                                            "REQUIRED in a JWT access token.")),
}


@pytest.mark.parametrize("name", list(CORPUS))
def test_corpus_verdicts_agree_or_are_listed(name: str) -> None:
    build, alg = CORPUS[name]
    got = verdicts(build(), alg)
    if name in DISAGREEMENTS:
        assert got == DISAGREEMENTS[name][0], (name, got)
        assert len(set(got)) > 1, f"{name}: listed as a disagreement, but all three now agree ({got})"
    else:
        assert len(set(got)) == 1, f"{name}: authgate/PyJWT/joserfc = {got}; fix it or list it with its RFC clause"


def test_authgate_is_never_the_only_one_to_accept() -> None:
    """The direction that matters for security: no corpus token passes authgate that both libraries refuse."""
    for name, (build, alg) in CORPUS.items():
        ours, theirs_a, theirs_b = verdicts(build(), alg)
        assert not (ours and not theirs_a and not theirs_b), name


# ------------------------------------------------------------------------------- generated tokens
EXTRA_HEADER = st.dictionaries(st.sampled_from(["jku", "x5u", "jwk", "crit", "b64", "cty", "zip", "foo", "kid",
                                                "typ", "alg"]),
                               st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8),
                                         st.lists(st.text(max_size=4), max_size=2)), max_size=3)
NUMBERS = st.one_of(st.integers(min_value=NOW - 10**6, max_value=NOW + 10**6),
                    st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.text(max_size=5), st.none())


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(alg=st.sampled_from(["RS256", "ES256"]), extra=EXTRA_HEADER, exp=NUMBERS, iat=NUMBERS, nbf=NUMBERS,
       aud=st.one_of(st.just(AUD), st.lists(st.sampled_from([AUD, "x"]), max_size=3), st.text(max_size=5)))
def test_generated_tokens_authgate_accepts_only_what_both_libraries_accept(alg: str, extra: dict[str, Any],
                                                                           exp: Any, iat: Any, nbf: Any,
                                                                           aud: Any) -> None:
    body = claims(exp=exp, iat=iat, aud=aud)
    if nbf is not None:
        body["nbf"] = nbf
    tok = raw(json.dumps({**header(alg), **extra}).encode(), json.dumps(body).encode(), alg)
    ours, theirs_a, theirs_b = verdicts(tok, alg)
    if ours:
        assert theirs_a and theirs_b, (extra, body)


@settings(max_examples=150, deadline=None, database=None)
@given(text=st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ \n", max_size=300))
def test_malformed_text_is_refused_by_all_three(text: str) -> None:
    assert verdicts(text) == (False, False, False)


# ------------------------------------------------------------------------------- keys
def _rsa_jwk(e: int = 65537, pad_n: bool = False) -> dict[str, Any]:
    numbers = rsa.generate_private_key(e, 2048).public_key().public_numbers()
    return {"kty": "RSA", "n": b64((b"\x00" if pad_n else b"") + numbers.n.to_bytes(256, "big")),
            "e": b64(numbers.e.to_bytes((numbers.e.bit_length() + 7) // 8, "big"))}


def _ec_jwk(x_prefix: bytes = b"") -> dict[str, Any]:
    numbers = EC_KEY.public_key().public_numbers()
    return {"kty": "EC", "crv": "P-256", "x": b64(x_prefix + numbers.x.to_bytes(32, "big")),
            "y": b64(numbers.y.to_bytes(32, "big"))}


KEY_CORPUS: dict[str, Callable[[], dict[str, Any]]] = {
    "RSA 2048, e=65537": _rsa_jwk,
    "RSA e=3": lambda: _rsa_jwk(3),
    "RSA n with a leading zero octet": lambda: _rsa_jwk(pad_n=True),
    "EC P-256": _ec_jwk,
    "EC x of 33 octets": lambda: _ec_jwk(b"\x00"),
    "Ed25519 identity (small order)": lambda: {"kty": "OKP", "crv": "Ed25519", "x": b64(bytes([1]) + bytes(31))},
    "Ed25519 y = p + 1 (non-canonical)": lambda: {"kty": "OKP", "crv": "Ed25519",
                                                  "x": b64((2**255 - 19 + 1).to_bytes(32, "little"))},
    "oct (symmetric)": lambda: {"kty": "oct", "k": b64(b"secret")},
}
KEY_DISAGREEMENTS: dict[str, tuple[tuple[bool, bool, bool], str]] = {
    "RSA e=3": ((R, A, A), ("FIPS 186-5 5.4 (e odd, 2^16 < e < 2^256) refuses e=3; authgate accepts only 65537, "
                "as every key it or a client generates uses, so a huge attacker-chosen e cannot slow verification.")),
    "RSA n with a leading zero octet": ((R, A, A), ("RFC 7518 6.3.1.1: n uses the minimum number of octets; "
                                        "one key, one text, one RFC 7638 thumbprint.")),
    "EC x of 33 octets": ((R, R, A), "RFC 7518 6.2.1.2: x is exactly the coordinate size (32 octets for P-256)."),
    "Ed25519 identity (small order)": ((R, A, A), ("A key of small order verifies R = identity, S = 0 for every "
                                       "message: it proves nothing (libsodium and ZIP 215 refuse such keys).")),
    "Ed25519 y = p + 1 (non-canonical)": ((R, A, A), "RFC 8032 5.1.3 step 1: a y >= p fails decoding."),
}


def key_verdicts(key: dict[str, Any]) -> tuple[bool, bool, bool]:
    def ours() -> bool:
        try:
            jwk.public_key(key)
        except (ValueError, TypeError):
            return False
        return True

    def pyjwt_key() -> bool:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pyjwt.PyJWK(key)
        except (pyjwt.PyJWTError, ValueError, TypeError):
            return False
        return key["kty"] != "oct"  # a symmetric key is never a verification key here

    def joserfc_key() -> bool:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                import_key(key)
        except (JoseError, ValueError, TypeError):
            return False
        return key["kty"] != "oct"

    return ours(), pyjwt_key(), joserfc_key()


@pytest.mark.parametrize("name", list(KEY_CORPUS))
def test_key_verdicts_agree_or_are_listed(name: str) -> None:
    got = key_verdicts(KEY_CORPUS[name]())
    if name in KEY_DISAGREEMENTS:
        assert got == KEY_DISAGREEMENTS[name][0], (name, got)
    else:
        assert len(set(got)) == 1, f"{name}: authgate/PyJWT/joserfc = {got}; fix it or list it with its RFC clause"
