"""What admin commands accept, checked before any stack is looked up: one clear reason per refusal.

Identifiers (client ids, tenant ids) are printable ASCII without spaces (RFC 6749 A.1 allows
spaces in a client_id; nothing here needs them, and they break shell scripts and logs). Names
and usernames are text without control characters (no terminal escapes, no line breaks that
would forge a log line). Redirect URIs are checked as the authorization endpoint will compare
them: absolute, no fragment, printable ASCII, valid percent-escapes (RFC 6749 3.1.2).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

MAX_ID = 200
MAX_TEXT = 200
_IDENTIFIER = re.compile(r"[\x21-\x7e]+")


class InvalidInput(ValueError):
    """An argument the command refuses; the message says which and why."""


def identifier(value: str, what: str) -> str:
    if not value:
        raise InvalidInput(f"{what} must not be empty")
    if len(value) > MAX_ID:
        raise InvalidInput(f"{what} is longer than {MAX_ID} characters")
    if not _IDENTIFIER.fullmatch(value):
        raise InvalidInput(f"{what} {_shown(value)} must be printable ASCII without spaces or control characters")
    return value


def text(value: str, what: str, *, limit: int = MAX_TEXT) -> str:
    """A name or username: any printable text, no control or format characters, no outer spaces."""
    if not value.strip():
        raise InvalidInput(f"{what} must not be empty")
    if len(value) > limit:
        raise InvalidInput(f"{what} is longer than {limit} characters")
    bad = next((c for c in value if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")), None)
    if bad is not None:
        raise InvalidInput(f"{what} {_shown(value)} contains the control character U+{ord(bad):04X}")
    if value != value.strip():
        raise InvalidInput(f"{what} {_shown(value)} starts or ends with a space")
    return value


def redirect_uri(value: str) -> str:
    from authgate.oauth.authorize_request import well_formed_uri

    if not well_formed_uri(value):
        raise InvalidInput(f"redirect URI {_shown(value)} is not an absolute URI in printable ASCII without a "
                           "fragment (RFC 6749 3.1.2); it must be exactly what the application will send")
    return value


def client_grants(grants: Sequence[str], client_type: str, redirect_uris: Sequence[str]) -> None:
    """The grants a client may be registered for, given its type and redirect URIs (RFC 6749 2.1, 3.1.2.2)."""
    if not grants:
        raise InvalidInput("give at least one --grant (authorization_code, refresh_token, client_credentials, "
                           "password)")
    if "authorization_code" in grants and not redirect_uris:
        raise InvalidInput("the authorization_code grant needs at least one --redirect-uri "
                           "(the code is sent back there, RFC 6749 3.1.2.2)")
    if redirect_uris and "authorization_code" not in grants:
        raise InvalidInput("--redirect-uri is only used by the authorization_code grant; add --grant "
                           "authorization_code or drop the redirect URIs")
    if "refresh_token" in grants and not {"authorization_code", "password"} & set(grants):
        raise InvalidInput("the refresh_token grant needs authorization_code or password: refresh tokens are "
                           "only issued with those")
    if client_type == "public" and "client_credentials" in grants:
        raise InvalidInput("a public client cannot use client_credentials: it has no secret (RFC 6749 4.4)")


def _shown(value: str) -> str:
    """The value quoted for an error line, control characters escaped so the line stays one line."""
    return repr(value[:60] + ("…" if len(value) > 60 else ""))


def existing_tenant(tenant_id: str) -> None:
    """The tenant must exist on the stack the command acts on (checked once the stack is known)."""
    from authgate.stores.tenants import TenantStore

    if TenantStore().get(tenant_id) is None:
        raise InvalidInput(f"tenant {tenant_id!r} does not exist here; create it first (authgate tenants create)")
