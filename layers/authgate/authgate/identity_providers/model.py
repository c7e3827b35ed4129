"""A tenant's trusted identity provider (draft-ietf-oauth-identity-assertion-authz-grant 4.3, 7.1).

Its issuer identifier (the `iss` of its ID-JAGs), where its signing keys are (a JWKS URI fetched
under the metadata-document fetcher's rules, or a JWK Set given inline), how its `sub` maps to a
user of the tenant (`user_match`: the username, or the email), and whether an unknown person
becomes a user (`create_users`); its short `idp_id` and `label`, and what its word is trusted for
(`trust_email`: its verified emails; `trust_mfa` with the `mfa_values` that mean a second factor).
A record written before these read as trusted for none of them. `FIELDS` drives the DynamoDB item
and the admin view.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from authgate import records
from authgate.records import Field

USER_MATCHES = ("sub", "email")


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
    label: str = ""
    # -- what its word is trusted for --
    trust_email: bool = False
    trust_mfa: bool = False
    mfa_values: tuple[str, ...] = ()

    def public_view(self) -> dict[str, Any]:
        """What an admin listing shows (an IdP holds no secret)."""
        view = records.public_view(FIELDS, self._asdict())
        view["jwks_uri"] = self.jwks_uri or None
        view["jwks"] = {"keys": list(self.jwks)} if self.jwks else None
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
    Field("label", "S", "", omit_empty=True),
    Field("trust_email", "BOOL", False, omit_empty=True),
    Field("trust_mfa", "BOOL", False, omit_empty=True),
    Field("mfa_values", "STRINGS", (), omit_empty=True),
)


def to_item(idp: IdentityProvider) -> records.Item:
    return records.to_item(FIELDS, idp._asdict())


def from_item(item: records.Item) -> IdentityProvider:
    return IdentityProvider(**records.from_item(FIELDS, item))
