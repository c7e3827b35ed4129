"""What admin commands accept, checked before any stack is looked up: authgate.administration.input's checks (the
console's forms take the same), and what only a command line has: a JWK Set read from a file."""

from __future__ import annotations

from typing import Any

from authgate.administration import input as checks
from authgate.administration.input import (
    GRANT_NAMES,
    GRANT_URNS,
    InvalidInput,
    client_grants,
    email,
    fapi2_registration,
    grant_type,
    granted_resources,
    identifier,
    known_scopes,
    redirect_uri,
    resource_scopes,
    scope_token,
    served_grants,
    text,
    with_grants,
)

__all__ = ["GRANT_NAMES", "GRANT_URNS", "InvalidInput", "client_grants", "email", "fapi2_registration", "grant_type",
           "granted_resources", "identifier", "jwks", "jwks_text", "known_scopes", "redirect_uri", "resource_scopes",
           "scope_token", "served_grants", "text", "with_grants"]


def jwks_text(value: str) -> str:
    """--jwks FILE|JSON: the JSON itself, or the file's text (the checks then read it as JSON)."""
    from pathlib import Path

    if value.lstrip().startswith("{"):
        return value
    try:
        return Path(value).read_text("utf-8")
    except OSError as exc:
        raise InvalidInput(f"--jwks {checks.quoted(value)} is neither a JSON JWK Set nor a readable file "
                           f"({exc.strerror})") from None


def jwks(value: str) -> tuple[dict[str, Any], ...]:
    """--jwks: a JWK Set as JSON, or the path of a file holding one; public signing keys only (RFC 7591 2)."""
    return checks.jwks(jwks_text(value))
