"""authgate.stores.identity_providers against moto's DynamoDB (tables from template.yaml)."""

from __future__ import annotations

import pytest

from authgate.identity_providers.errors import IdentityProviderExists, IdentityProviderNotFound
from authgate.identity_providers.model import IdentityProvider
from authgate.stores.identity_providers import IdentityProviderStore

OKTA = IdentityProvider("demo", "https://acme.okta.example", jwks_uri="https://acme.okta.example/oauth2/v1/keys",
                        user_match="email", create_users=True, created_at=1_750_000_000)
INLINE = IdentityProvider("acme", "https://idp.acme.example",
                          jwks=({"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
                                 "kid": "k1"},))


def test_create_get_list_update_delete(aws: None) -> None:
    store = IdentityProviderStore()
    store.create(OKTA)
    store.create(INLINE)
    assert (store.get("demo", OKTA.issuer), store.get("acme", INLINE.issuer)) == (OKTA, INLINE)
    # Trust is per tenant: the same issuer means nothing to another tenant.
    assert store.get("acme", OKTA.issuer) is None
    assert sorted(store.list()) == sorted([OKTA, INLINE])
    with pytest.raises(IdentityProviderExists):
        store.create(OKTA._replace(user_match="sub"))
    store.update(OKTA._replace(create_users=False))
    assert store.get("demo", OKTA.issuer) == OKTA._replace(create_users=False)
    store.delete("demo", OKTA.issuer)
    assert store.get("demo", OKTA.issuer) is None
    with pytest.raises(IdentityProviderNotFound):
        store.delete("demo", OKTA.issuer)
    with pytest.raises(IdentityProviderNotFound):
        store.update(OKTA)


NOT_FOR_SIGN_IN = {"idp_id": "", "protocol": "", "label": "", "domains": [], "sign_in": False, "client_id": "",
                   "scopes": "", "preset": "", "apple_team_id": "", "apple_key_id": "", "saml": None,
                   "trust_email": False, "trust_mfa": False, "mfa_values": [], "step_up": "local", "claims": {},
                   "client_secret_set": False, "apple_private_key_set": False}


def test_public_view() -> None:
    assert OKTA.public_view() == {"tenant_id": "demo", "issuer": OKTA.issuer, "jwks_uri": OKTA.jwks_uri,
                                  "jwks": None, "user_match": "email", "create_users": True,
                                  "created_at": 1_750_000_000, **NOT_FOR_SIGN_IN}
    assert INLINE.public_view()["jwks"] == {"keys": list(INLINE.jwks)}


def test_the_public_view_says_whether_a_secret_is_set_and_never_shows_it() -> None:
    sso = OKTA._replace(protocol="oidc", client_id="authgate", client_secret="v1.sealed-secret",
                        claims=(("groups", "roles"),), sign_in=True)
    view = sso.public_view()
    assert "client_secret" not in view and "apple_private_key" not in view
    assert "v1.sealed-secret" not in repr(view)
    assert {k: view[k] for k in ("protocol", "client_id", "client_secret_set", "claims", "sign_in")} == {
        "protocol": "oidc", "client_id": "authgate", "client_secret_set": True, "claims": {"groups": "roles"},
        "sign_in": True}


def test_claim_names_are_the_mapped_one_or_the_protocols_defaults() -> None:
    assert OKTA.claim_names("email") == ("email",)
    assert OKTA._replace(claims=(("email", "upn"),)).claim_names("email") == ("upn",)
    saml = OKTA._replace(protocol="saml")
    assert saml.claim_names("email")[0] == "urn:oid:0.9.2342.19200300.100.1.3"
    assert OKTA.requested_scopes == "openid email profile"
