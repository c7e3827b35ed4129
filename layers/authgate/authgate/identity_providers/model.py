"""A tenant's identity provider: trusted for its ID-JAGs, and offered for sign-in (OpenID Connect or SAML 2.0).

One record serves both. For ID-JAGs (draft-ietf-oauth-identity-assertion-authz-grant 4.3, 7.1):
its issuer identifier (the `iss` of its ID-JAGs), where its signing keys are (a JWKS URI fetched
under authgate.outbound's rules, or a JWK Set given inline), how its `sub` maps to a user of the
tenant (`user_match`) and whether an unknown person becomes a user (`create_users`). For sign-in
(`protocol` oidc or saml): the relying party's client (`client_id`, a sealed `client_secret`, or
Apple's team, key id and sealed private key), the scopes asked for, the button's `label`, the
email `domains` that send a person straight there, what its word is trusted for (`trust_email`,
`trust_mfa` with the `mfa_values` that mean it, `step_up`) and which of its claims hold the email,
the name and the groups (`claims`). A record written before any of these read as an IdP trusted
for ID-JAGs only. Secrets are sealed by authgate.federation.secrets and never shown. `FIELDS`
drives the DynamoDB item and the admin view.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple
from urllib.parse import quote

from authgate import records
from authgate.records import Field

USER_MATCHES = ("sub", "email")
# "" is an IdP trusted for ID-JAGs only (every record written before sign-in existed).
PROTOCOLS = ("oidc", "saml")
PRESETS = ("google", "apple")
STEP_UPS = ("local", "upstream")
DEFAULT_SCOPES = "openid email profile"
# A short id, unique within the tenant, used in URLs and on buttons.
IDP_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
CLAIM_FIELDS = ("email", "name", "groups")
# Which upstream claim (OIDC) or attribute (SAML) holds each field, when the record maps none:
# OIDC Core 5.1's names; for SAML the eduPerson/X.500 OIDs (SAML V2.0 X.500/LDAP Attribute Profile), the
# names Microsoft Entra ID and AD FS send, and plain names, the first one present winning.
DEFAULT_CLAIMS: dict[str, dict[str, tuple[str, ...]]] = {
    "oidc": {"email": ("email",), "name": ("name",), "groups": ("groups",)},
    "saml": {
        "email": ("urn:oid:0.9.2342.19200300.100.1.3",
                  "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress", "email", "mail"),
        "name": ("urn:oid:2.16.840.1.113730.3.1.241", "http://schemas.microsoft.com/identity/claims/displayname",
                 "displayName", "name"),
        "groups": ("urn:oid:1.3.6.1.4.1.5923.1.5.1.1", "http://schemas.microsoft.com/ws/2008/06/identity/claims/groups",
                   "groups", "memberOf"),
    },
}
# Where authgate receives a sign-in's answer (the redirect URI to register at the IdP; its route is the
# interaction's). One path for every IdP: the state names which one the answer is for.
CALLBACK_PATH = "/oauth/federation/callback"


# Where an OpenID Provider sends the browser back after its own sign-out (RP-Initiated Logout 1.0 3: the
# post_logout_redirect_uri to register at the IdP); one path for every IdP, as the callback.
LOGGED_OUT_PATH = "/oauth/federation/logged-out"


def redirect_uri(issuer: str) -> str:
    """The redirect URI an IdP's administrator registers for authgate at `issuer` (authgate's own)."""
    return issuer.rstrip("/") + CALLBACK_PATH


def post_logout_redirect_uri(issuer: str) -> str:
    """The post-logout redirect URI an OpenID Provider's administrator registers for authgate at `issuer`."""
    return issuer.rstrip("/") + LOGGED_OUT_PATH


def backchannel_logout_uri(issuer: str, tenant_id: str, idp_id: str) -> str:
    """Where the IdP `idp_id` of `tenant_id` POSTs its back-channel logout tokens (Back-Channel Logout 1.0 2.2: the
    backchannel_logout_uri to register at the IdP)."""
    return f"{issuer.rstrip('/')}/oauth/federation/{quote(tenant_id, safe='')}/{idp_id}/backchannel-logout"


class IdentityProvider(NamedTuple):
    """An IdP a tenant trusts to say who its people are."""

    tenant_id: str
    issuer: str
    jwks_uri: str = ""
    # The inline JWK Set's public keys (`--jwks-file`), when there is no JWKS URI.
    jwks: tuple[dict[str, Any], ...] = ()
    user_match: str = "sub"
    create_users: bool = False
    created_at: int = 0
    idp_id: str = ""
    protocol: str = ""
    label: str = ""
    domains: tuple[str, ...] = ()
    sign_in: bool = False
    # -- OpenID Connect --
    client_id: str = ""
    # Sealed (authgate.federation.secrets): never in clear in the item, never shown.
    client_secret: str = ""
    scopes: str = ""
    preset: str = ""
    apple_team_id: str = ""
    apple_key_id: str = ""
    apple_private_key: str = ""
    # -- SAML 2.0 (authgate.federation.saml.metadata): entity_id, sso_url, slo_url, certificates,
    # metadata_url, name_id_format. --
    saml: dict[str, Any] | None = None
    # -- what its word is trusted for --
    trust_email: bool = False
    trust_mfa: bool = False
    mfa_values: tuple[str, ...] = ()
    step_up: str = "local"
    # (field, upstream claim name) pairs, for the fields in CLAIM_FIELDS the admin mapped.
    claims: tuple[tuple[str, str], ...] = ()

    @property
    def requested_scopes(self) -> str:
        """The scopes a sign-in asks for (OpenID Connect Core 3.1.2.1): the record's, or the default."""
        return self.scopes or DEFAULT_SCOPES

    def claim_names(self, field: str) -> tuple[str, ...]:
        """The upstream claims (or SAML attributes) that may hold `field`, in order: the mapped one, or the defaults."""
        mapped = dict(self.claims).get(field)
        if mapped:
            return (mapped,)
        return DEFAULT_CLAIMS.get(self.protocol or "oidc", DEFAULT_CLAIMS["oidc"]).get(field, ())

    def public_view(self) -> dict[str, Any]:
        """What an admin listing shows: every field but the sealed secrets, which it says are set or not."""
        view = records.public_view(FIELDS, self._asdict())
        view["jwks_uri"] = self.jwks_uri or None
        view["jwks"] = {"keys": list(self.jwks)} if self.jwks else None
        view["client_secret_set"] = bool(self.client_secret)
        view["apple_private_key_set"] = bool(self.apple_private_key)
        return view


FIELDS = (
    Field("tenant_id", "S"),
    Field("issuer", "S"),
    Field("jwks_uri", "S", "", omit_empty=True),
    Field("jwks", "KEYS", (), omit_empty=True),
    Field("user_match", "S", "sub"),
    Field("create_users", "BOOL", False),
    Field("created_at", "N", 0),
    Field("idp_id", "S", "", omit_empty=True),
    Field("protocol", "S", "", omit_empty=True),
    Field("label", "S", "", omit_empty=True),
    Field("domains", "STRINGS", (), omit_empty=True),
    Field("sign_in", "BOOL", False, omit_empty=True),
    Field("client_id", "S", "", omit_empty=True),
    Field("client_secret", "S", "", omit_empty=True, public=False),
    Field("scopes", "S", "", omit_empty=True),
    Field("preset", "S", "", omit_empty=True),
    Field("apple_team_id", "S", "", omit_empty=True),
    Field("apple_key_id", "S", "", omit_empty=True),
    Field("apple_private_key", "S", "", omit_empty=True, public=False),
    Field("saml", "JSON", None, omit_none=True),
    Field("trust_email", "BOOL", False, omit_empty=True),
    Field("trust_mfa", "BOOL", False, omit_empty=True),
    Field("mfa_values", "STRINGS", (), omit_empty=True),
    Field("step_up", "S", "local"),
    Field("claims", "MAP", (), omit_empty=True),
)


def to_item(idp: IdentityProvider) -> records.Item:
    return records.to_item(FIELDS, idp._asdict())


def from_item(item: records.Item) -> IdentityProvider:
    return IdentityProvider(**records.from_item(FIELDS, item))
