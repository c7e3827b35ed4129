"""What each field of an identity provider may be: issuers, the sign-in client, labels, domains, claims, presets.

Each function takes the value as given and returns the record's value, or raises InvalidInput with one line naming
the field as `authgate idps` names its flag (the console says the same). A secret never appears in a message: the
caller says where it came from (`source`: a file's flag and path, or the console's field).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from authgate.identity_providers.model import CLAIM_FIELDS, IDP_ID
from authgate.oauth.redirect_uris import well_formed_uri
from authgate.operators.input import InvalidInput, identifier, text

MAX_ISSUER = 500
MAX_SECRET = 1024
MAX_LABEL = 64
MAX_KEY_FILE = 4096
MAX_JWKS = 256 * 1024
BOTH_KEYS = "give --jwks-uri or --jwks-file, not both"
# Apple's Team ID and Key ID: ten upper-case letters and digits.
_APPLE_ID = re.compile(r"[A-Z0-9]{10}")
_DOMAIN = re.compile(r"(?=.{1,253}\Z)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")
_SCOPE_TOKEN = re.compile(r"[\x21\x23-\x5b\x5d-\x7e]+")  # RFC 6749 3.3


class Preset(NamedTuple):
    """What `--preset` fills in (the provider's issuer and what a sign-in asks of it)."""

    issuer: str
    label: str
    scopes: str
    claims: tuple[tuple[str, str], ...]


PRESETS = {
    # Google's OpenID Connect (developers.google.com/identity/openid-connect): profile gives the name.
    "google": Preset("https://accounts.google.com", "Google", "openid email profile",
                     (("email", "email"), ("name", "name"))),
    # Sign in with Apple: the name comes in the first form POST, never in the ID token.
    "apple": Preset("https://appleid.apple.com", "Apple", "openid email name", (("email", "email"),)),
}


def issuer(value: str) -> str:
    """An https URL without fragment, query or user information (OpenID Connect Discovery 3; RFC 8414 2)."""
    if len(value) > MAX_ISSUER or not well_formed_uri(value):
        raise InvalidInput(f"--issuer {value[:200]!r} is not an absolute URI in printable ASCII")
    parts = urlsplit(value)
    if parts.scheme != "https" or not parts.hostname or parts.username is not None or parts.query or parts.fragment:
        raise InvalidInput(f"--issuer {value!r} must be an https URL without query, fragment or user "
                           "information (RFC 8414 2)")
    return value


def record_issuer(value: str) -> str:
    """The --issuer naming an existing IdP: an OIDC issuer, or a SAML entityID (any absolute URI, http or urn too)."""
    if len(value) > MAX_ISSUER or not well_formed_uri(value):
        raise InvalidInput(f"--issuer {value[:200]!r} is not an absolute URI in printable ASCII")
    return value


def jwks_uri(value: str) -> str:
    """https with a path, as the keys' fetcher requires (it fetches this URL)."""
    from authgate.clients.errors import MetadataRefused
    from authgate.oauth.clients.metadata_document.client_id_url import parse

    try:
        parse(value)
    except MetadataRefused as refused:
        reason = refused.detail.split(": ", 1)[-1].rstrip(".")
        raise InvalidInput(f"--jwks-uri {value[:200]!r}: {reason.replace('client_id', 'URL')}") from None
    return value


def jwks(document: str, source: str) -> tuple[dict[str, Any], ...]:
    """The JWK Set an IdP trusted for ID-JAGs signs with, as JSON (from `source`: the file's flag and path, or the
    console's field): public signing keys only (RS256, PS256, ES256, EdDSA), at most 20."""
    import json

    from authgate.tokens.client_keys import IDP_ALGORITHMS, InvalidJwks, validate

    if len(document.encode("utf-8")) > MAX_JWKS:
        raise InvalidInput(f"{source} is larger than {MAX_JWKS} bytes")
    try:
        parsed = json.loads(document)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{source} is not JSON: {exc.msg} at line {exc.lineno}") from None
    try:
        return validate(parsed, IDP_ALGORITHMS, max_keys=20)
    except InvalidJwks as exc:
        raise InvalidInput(f"{source}: {exc}") from None


def keys(uri: str | None, document: str | None, source: str) -> dict[str, Any] | None:
    """The key source given (`uri`, or the JWK Set `document` from `source`) as the record's fields; None: neither."""
    if uri is not None and document is not None:
        raise InvalidInput(BOTH_KEYS)
    if uri is not None:
        return {"jwks_uri": jwks_uri(uri), "jwks": ()}
    if document is not None:
        return {"jwks_uri": "", "jwks": jwks(document, source)}
    return None


def client_secret(secret: str, source: str) -> str:
    """The client secret the IdP issued: one line (one trailing line break allowed), at most MAX_SECRET bytes."""
    secret = secret.removesuffix("\n").removesuffix("\r")
    if len(secret.encode("utf-8")) > MAX_SECRET:
        raise InvalidInput(f"{source} is larger than {MAX_SECRET} bytes")
    if not secret or any(ord(c) < 0x20 or ord(c) == 0x7F for c in secret):
        raise InvalidInput(f"{source} must hold the secret alone, on one line")
    return secret


def apple_private_key(pem: str, source: str) -> str:
    """Apple's .p8 download: an EC P-256 private key in PEM (PKCS #8)."""
    from authgate.federation.oidc.apple import check_private_key

    try:
        check_private_key(pem)
    except (ValueError, TypeError):
        raise InvalidInput(f"{source} is not the EC P-256 private key (.p8) Apple issued for Sign in with "
                           "Apple") from None
    return pem


def apple_id(value: str, flag: str) -> str:
    if not _APPLE_ID.fullmatch(value):
        raise InvalidInput(f"{flag} {value[:40]!r} must be Apple's ten letters and digits (e.g. ABCDE12345)")
    return value


def client_id(value: str) -> str:
    return identifier(value, "--client-id")


def idp_id(value: str) -> str:
    if not IDP_ID.fullmatch(value):
        raise InvalidInput(f"--id {value[:40]!r} must be 1 to 32 lower-case letters, digits and '-', "
                           "starting with a letter or digit")
    return value


def derived_id(label_text: str, issuer_url: str) -> str:
    """An id from the label, else from the issuer's host: lower case, '-' between words, 32 characters at most."""
    base = label_text or (urlsplit(issuer_url).hostname or "idp")
    slug = re.sub(r"[^a-z0-9]+", "-", base.lower()).strip("-")[:32].strip("-")
    return slug or "idp"


def label(value: str) -> str:
    return text(value, "--label", limit=MAX_LABEL)


def domains(values: list[str]) -> tuple[str, ...]:
    """Email domains (lower case) whose people this IdP signs in (home-realm discovery)."""
    found = []
    for value in values:
        domain = value.strip().lower().rstrip(".")
        if not _DOMAIN.fullmatch(domain):
            raise InvalidInput(f"--domain {value[:100]!r} is not a domain name such as acme.example")
        found.append(domain)
    return tuple(dict.fromkeys(found))


def scopes(value: str) -> str:
    """Scope tokens separated by single spaces (RFC 6749 3.3), openid among them (OpenID Connect Core 3.1.2.1)."""
    tokens = value.split(" ")
    if not all(_SCOPE_TOKEN.fullmatch(t) for t in tokens):
        raise InvalidInput(f"--scopes {value[:200]!r} must be scope tokens separated by single spaces "
                           "(RFC 6749 3.3)")
    if "openid" not in tokens:
        raise InvalidInput(f"--scopes {value[:200]!r} must include openid (OpenID Connect Core 3.1.2.1)")
    return value


def claims(values: list[str]) -> tuple[tuple[str, str], ...]:
    """FIELD=NAME pairs: which upstream claim (or SAML attribute) holds the email, the name, the groups."""
    mapped: dict[str, str] = {}
    for value in values:
        field, equals, name = value.partition("=")
        if not equals or field not in CLAIM_FIELDS or not name or len(name) > 200 or not name.isprintable():
            raise InvalidInput(f"--claim {value[:100]!r} must be FIELD=NAME with FIELD one of "
                               f"{', '.join(CLAIM_FIELDS)}")
        mapped[field] = name
    return tuple(sorted(mapped.items()))


def mfa_values(values: list[str]) -> tuple[str, ...]:
    """The upstream acr or amr values that mean a second factor was used."""
    for value in values:
        if not value or len(value) > 200 or not _SCOPE_TOKEN.fullmatch(value):
            raise InvalidInput(f"--trust-mfa {value[:100]!r} must be an acr or amr value without spaces")
    return tuple(dict.fromkeys(values))
