"""What an upstream identity provider said about a person, whatever its protocol (OpenID Connect or SAML 2.0)."""

from __future__ import annotations

from typing import NamedTuple


class UpstreamIdentity(NamedTuple):
    """A person as their identity provider vouched for them, once every protocol rule held."""

    tenant_id: str
    issuer: str            # the IdP record's key (OIDC issuer, or SAML entity ID)
    subject: str           # OIDC `sub`, or SAML NameID (with its Format) -- never an email alone
    email: str = ""
    email_verified: bool = False
    name: str = ""
    groups: tuple[str, ...] = ()
    acr: str = ""          # OIDC acr, or SAML AuthnContextClassRef
    amr: tuple[str, ...] = ()
    auth_time: int = 0     # seconds; 0 if unknown
    session_id: str = ""   # OIDC `sid`, or SAML SessionIndex (for upstream logout / back-channel logout)
    id_token: str = ""     # OIDC only, kept in memory for RP-initiated logout's id_token_hint; never logged
