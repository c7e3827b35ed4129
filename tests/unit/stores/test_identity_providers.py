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


def test_public_view() -> None:
    assert OKTA.public_view() == {"tenant_id": "demo", "issuer": OKTA.issuer, "jwks_uri": OKTA.jwks_uri,
                                  "jwks": None, "user_match": "email", "create_users": True,
                                  "created_at": 1_750_000_000, "idp_id": "", "label": "", "trust_email": False,
                                  "trust_mfa": False, "mfa_values": []}
    assert INLINE.public_view()["jwks"] == {"keys": list(INLINE.jwks)}


def test_what_an_idp_is_trusted_for_is_kept_and_an_item_written_before_reads_as_trusted_for_nothing(aws: None) -> None:
    store = IdentityProviderStore()
    trusted = OKTA._replace(idp_id="acme-sso", label="Acme SSO", trust_email=True, trust_mfa=True,
                            mfa_values=("http://schemas.openid.net/pape/policies/2007/06/multi-factor", "mfa"))
    store.create(trusted)
    store.db.put_item(TableName=store.table, Item={"tenant_id": {"S": "acme"}, "issuer": {"S": INLINE.issuer},
                                                   "user_match": {"S": "sub"}, "create_users": {"BOOL": False},
                                                   "created_at": {"N": "1700000000"}})

    assert store.get("demo", OKTA.issuer) == trusted
    assert store.get("acme", INLINE.issuer) == IdentityProvider("acme", INLINE.issuer, created_at=1_700_000_000)
