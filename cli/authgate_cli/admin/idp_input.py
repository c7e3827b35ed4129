"""What `authgate idps` accepts, checked before any stack is looked up: issuers, keys, the sign-in client, presets.

Each function takes what the command line gave and returns the record's value, or raises
arguments.InvalidInput with one line naming the flag. A secret is read from a file (never from the
command line, where `ps` and the shell's history would keep it) and never appears in a message.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from authgate.identity_providers.model import CLAIM_FIELDS, IDP_ID
from authgate_cli.admin import arguments

MAX_ISSUER = 500
MAX_SECRET = 1024
MAX_LABEL = 64
MAX_KEY_FILE = 4096
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
    from authgate.oauth.redirect_uris import well_formed_uri

    if len(value) > MAX_ISSUER or not well_formed_uri(value):
        raise arguments.InvalidInput(f"--issuer {value[:200]!r} is not an absolute URI in printable ASCII")
    parts = urlsplit(value)
    if parts.scheme != "https" or not parts.hostname or parts.username is not None or parts.query or parts.fragment:
        raise arguments.InvalidInput(f"--issuer {value!r} must be an https URL without query, fragment or user "
                                      "information (RFC 8414 2)")
    return value


def record_issuer(value: str) -> str:
    """The --issuer naming an existing IdP: an OIDC issuer, or a SAML entityID (any absolute URI, http or urn too)."""
    from authgate.oauth.redirect_uris import well_formed_uri

    if len(value) > MAX_ISSUER or not well_formed_uri(value):
        raise arguments.InvalidInput(f"--issuer {value[:200]!r} is not an absolute URI in printable ASCII")
    return value


def jwks_uri(value: str) -> str:
    """https with a path, as the keys' fetcher requires (it fetches this URL)."""
    from authgate.clients.errors import MetadataRefused
    from authgate.oauth.clients.metadata_document.client_id_url import parse

    try:
        parse(value)
    except MetadataRefused as refused:
        reason = refused.detail.split(": ", 1)[-1].rstrip(".")
        raise arguments.InvalidInput(f"--jwks-uri {value[:200]!r}: {reason.replace('client_id', 'URL')}") from None
    return value


def _read(path: str, flag: str, limit: int) -> str:
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise arguments.InvalidInput(f"{flag} {path!r} cannot be read ({exc.strerror})") from None
    if len(raw) > limit:
        raise arguments.InvalidInput(f"{flag} {path!r} is larger than {limit} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise arguments.InvalidInput(f"{flag} {path!r} is not UTF-8 text") from None


def jwks_file(value: str) -> tuple[dict[str, Any], ...]:
    """A file holding the IdP's JWK Set: public signing keys only (RS256, PS256, ES256, EdDSA)."""
    from authgate.tokens.client_keys import IDP_ALGORITHMS, InvalidJwks, validate

    try:
        document = json.loads(_read(value, "--jwks-file", 256 * 1024))
    except json.JSONDecodeError as exc:
        raise arguments.InvalidInput(f"--jwks-file {value!r} is not JSON: {exc.msg} at line {exc.lineno}") from None
    try:
        return validate(document, IDP_ALGORITHMS, max_keys=20)
    except InvalidJwks as exc:
        raise arguments.InvalidInput(f"--jwks-file {value!r}: {exc}") from None


def client_secret_file(path: str) -> str:
    """The client secret the IdP issued, alone in a file (one trailing line break allowed)."""
    secret = _read(path, "--client-secret-file", MAX_SECRET).removesuffix("\n").removesuffix("\r")
    if not secret or any(ord(c) < 0x20 or ord(c) == 0x7F for c in secret):
        raise arguments.InvalidInput(f"--client-secret-file {path!r} must hold the secret alone, on one line")
    return secret


def apple_private_key_file(path: str) -> str:
    """Apple's .p8 download: an EC P-256 private key in PEM (PKCS #8)."""
    from authgate.federation.oidc.apple import check_private_key

    pem = _read(path, "--apple-private-key-file", MAX_KEY_FILE)
    try:
        check_private_key(pem)
    except (ValueError, TypeError):
        raise arguments.InvalidInput(f"--apple-private-key-file {path!r} is not the EC P-256 private key (.p8) "
                                      "Apple issued for Sign in with Apple") from None
    return pem


def apple_id(value: str, flag: str) -> str:
    if not _APPLE_ID.fullmatch(value):
        raise arguments.InvalidInput(f"{flag} {value[:40]!r} must be Apple's ten letters and digits (e.g. ABCDE12345)")
    return value


def idp_id(value: str) -> str:
    if not IDP_ID.fullmatch(value):
        raise arguments.InvalidInput(f"--id {value[:40]!r} must be 1 to 32 lower-case letters, digits and '-', "
                                      "starting with a letter or digit")
    return value


def derived_id(label: str, issuer_url: str) -> str:
    """An id from the label, else from the issuer's host: lower case, '-' between words, 32 characters at most."""
    base = label or (urlsplit(issuer_url).hostname or "idp")
    slug = re.sub(r"[^a-z0-9]+", "-", base.lower()).strip("-")[:32].strip("-")
    return slug or "idp"


def label(value: str) -> str:
    return arguments.text(value, "--label", limit=MAX_LABEL)


def domains(values: list[str]) -> tuple[str, ...]:
    """Email domains (lower case) whose people this IdP signs in (home-realm discovery)."""
    found = []
    for value in values:
        domain = value.strip().lower().rstrip(".")
        if not _DOMAIN.fullmatch(domain):
            raise arguments.InvalidInput(f"--domain {value[:100]!r} is not a domain name such as acme.example")
        found.append(domain)
    return tuple(dict.fromkeys(found))


def scopes(value: str) -> str:
    """Scope tokens separated by single spaces (RFC 6749 3.3), openid among them (OpenID Connect Core 3.1.2.1)."""
    tokens = value.split(" ")
    if not all(_SCOPE_TOKEN.fullmatch(t) for t in tokens):
        raise arguments.InvalidInput(f"--scopes {value[:200]!r} must be scope tokens separated by single spaces "
                                      "(RFC 6749 3.3)")
    if "openid" not in tokens:
        raise arguments.InvalidInput(f"--scopes {value[:200]!r} must include openid (OpenID Connect Core 3.1.2.1)")
    return value


def claims(values: list[str]) -> tuple[tuple[str, str], ...]:
    """FIELD=NAME pairs: which upstream claim (or SAML attribute) holds the email, the name, the groups."""
    mapped: dict[str, str] = {}
    for value in values:
        field, equals, name = value.partition("=")
        if not equals or field not in CLAIM_FIELDS or not name or len(name) > 200 or not name.isprintable():
            raise arguments.InvalidInput(f"--claim {value[:100]!r} must be FIELD=NAME with FIELD one of "
                                          f"{', '.join(CLAIM_FIELDS)}")
        mapped[field] = name
    return tuple(sorted(mapped.items()))


def mfa_values(values: list[str]) -> tuple[str, ...]:
    """The upstream acr or amr values that mean a second factor was used."""
    for value in values:
        if not value or len(value) > 200 or not _SCOPE_TOKEN.fullmatch(value):
            raise arguments.InvalidInput(f"--trust-mfa {value[:100]!r} must be an acr or amr value without spaces")
    return tuple(dict.fromkeys(values))
