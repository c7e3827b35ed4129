"""The person an upstream identity provider vouches for, as every protocol returns it (OpenID Connect ID token and
userinfo; a SAML assertion): the one value the linked identities, provisioning and assurance rules read."""

from __future__ import annotations

from typing import NamedTuple


class UpstreamIdentity(NamedTuple):
    """Who signed in at the IdP, and how; the person is (tenant_id, issuer, subject), never an email alone."""

    tenant_id: str
    issuer: str            # the IdP record's key (OIDC issuer, or SAML entity ID)
    subject: str           # OIDC `sub`, or SAML NameID (with its Format) — never an email alone
    email: str = ""
    email_verified: bool = False
    name: str = ""
    groups: tuple[str, ...] = ()
    acr: str = ""          # OIDC acr, or SAML AuthnContextClassRef
    amr: tuple[str, ...] = ()
    auth_time: int = 0     # seconds; 0 if unknown
    session_id: str = ""   # OIDC `sid`, or SAML SessionIndex (for upstream logout / back-channel logout)
    id_token: str = ""     # OIDC only, kept in memory for RP-initiated logout's id_token_hint; never logged
