"""Scopes (RFC 6749 3.3): the scopes this server knows, and parsing of a `scope` parameter."""

from __future__ import annotations

import re

# Known on every deployment (docs/oauth.md); clients are registered with a subset, tenants may forbid some.
KNOWN_SCOPES: tuple[str, ...] = ("charges:read", "charges:write", "charges:refund")
# The OpenID Provider's own scopes (OIDC Core 3.1.2.1 openid, 5.4 profile and email, 11 offline_access):
# not a resource's, granted to the clients registered with them in a person's grant only.
IDENTITY_SCOPES: tuple[str, ...] = ("openid", "profile", "email", "offline_access")
IDENTITY_SCOPE_DESCRIPTIONS: tuple[tuple[str, str], ...] = (
    ("email", "See your email address"), ("offline_access", "Keep access while you are away"),
    ("openid", "Sign you in with your account"), ("profile", "See your name and username"))
# The charges API as the consent page names it (oauth.resource_indicator.builtin_resource).
CHARGES_NAME = "Charges API"
CHARGES_DESCRIPTION = "Your organisation's charges, refunds and invoices."
CHARGES_SCOPE_DESCRIPTIONS: tuple[tuple[str, str], ...] = (
    ("charges:read", "See your charges"), ("charges:refund", "Refund charges"), ("charges:write", "Create charges"))

# scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), space-delimited (RFC 6749 3.3).
_SCOPE_TOKEN = re.compile(r"[\x21\x23-\x5B\x5D-\x7E]+")


class ScopeSyntaxError(ValueError):
    """The scope parameter is not a space-delimited list of RFC 6749 scope-tokens."""


def parse_scope(raw: str) -> tuple[str, ...]:
    """Scope tokens in request order, duplicates dropped; empty string -> ()."""
    if raw == "":
        return ()
    tokens = raw.split(" ")
    if any(not _SCOPE_TOKEN.fullmatch(t) for t in tokens):
        raise ScopeSyntaxError("scope must be scope-tokens separated by single spaces (RFC 6749 3.3)")
    return tuple(dict.fromkeys(tokens))


def format_scope(scopes: tuple[str, ...] | list[str]) -> str:
    return " ".join(scopes)
