"""console.idps: one tenant's identity providers (`authgate idps list`), each escaped and a link to its page by id or
issuer, where its keys are, the ways to add one for who may change them; the tenants are those the rule reaches."""

from __future__ import annotations

import pytest

from authgate.console.idps import get_idps
from authgate.errors import ApiError
from tests.unit.console.page_support import get, main_text, signed, tenants


@pytest.fixture
def acme(aws: None) -> None:
    """Tenants acme and globex; acme trusts an OpenID Provider, a SAML IdP and an issuer of ID-JAGs (listed by issuer,
    which is not their ids' order)."""
    from authgate.identity_providers.model import IdentityProvider
    from authgate.stores.identity_providers import IdentityProviderStore

    tenants("acme", "globex")
    store = IdentityProviderStore()
    store.create(IdentityProvider("acme", "https://op.example", idp_id="corp", protocol="oidc", label="<b>Corp</b>",
                                  domains=("corp.example", "corp.test"), sign_in=True, client_id="c",
                                  create_users=True))
    store.create(IdentityProvider("acme", "https://saml.example/idp", idp_id="a-saml", protocol="saml",
                                  jwks=({"kty": "EC"}, {"kty": "EC"}), saml={"sso_url": "https://saml.example/sso"}))
    store.create(IdentityProvider("acme", "https://jag.example", jwks_uri="https://jag.example/jwks"))


def test_a_tenants_identity_providers_and_the_ways_to_add_one(acme: None) -> None:
    answer = get_idps(get("idps", [("tenant", "acme")]), signed("admin"))
    assert main_text(answer) == (
        "Identity providers Tenant acme globex Show Identity providers of acme ID Label Issuer Protocol Sign-in "
        "Domains Keys Create users https://jag.example - https://jag.example id-jag no - https://jag.example/jwks no "
        "corp <b>Corp</b> https://op.example oidc yes corp.example, corp.test discovery yes "
        "a-saml - https://saml.example/idp saml no - 2 keys inline no "
        "Add an OpenID Connect provider Add Google Add Sign in with Apple Add a SAML 2.0 provider "
        "Add an issuer of ID-JAGs only")
    body = str(answer.body)
    assert "<b>Corp" not in body and "&lt;b&gt;Corp&lt;/b&gt;" in body
    assert '<a href="http://127.0.0.1:3000/console/idp?tenant=acme&amp;idp_id=corp">corp</a>' in body
    assert ('<a href="http://127.0.0.1:3000/console/idp?tenant=acme&amp;issuer=https%3A%2F%2Fjag.example">'
            "https://jag.example</a>") in body  # no id: named by its issuer
    assert '<a href="http://127.0.0.1:3000/console/idp-create?tenant=acme&amp;kind=saml">' in body


def test_an_auditor_reads_them_and_an_empty_tenant_says_so(acme: None) -> None:
    assert main_text(get_idps(get("idps", [("tenant", "globex")]), signed("auditor"))) == (
        "Identity providers Tenant acme globex Show Tenant globex trusts no identity provider.")


def test_one_key_inline_is_said_as_one(aws: None) -> None:
    from authgate.identity_providers.model import IdentityProvider
    from authgate.stores.identity_providers import IdentityProviderStore

    tenants("acme")
    IdentityProviderStore().create(IdentityProvider("acme", "https://one.example", jwks=({"kty": "EC"},)))
    assert main_text(get_idps(get("idps"), signed("auditor"))).endswith(
        "https://one.example - https://one.example id-jag no - 1 key inline no")


def test_support_is_refused_before_anything_is_read(acme: None) -> None:
    with pytest.raises(ApiError) as refused:
        get_idps(get("idps", [("tenant", "acme")]), signed("support", "acme"))
    assert (refused.value.code, refused.value.detail) == (
        "operator_forbidden", "Your roles (support (acme)) do not allow this in tenant acme.")
    with pytest.raises(ApiError) as missing:
        get_idps(get("idps", [("tenant", "nowhere")]), signed("owner"))
    assert (missing.value.code, missing.value.detail) == ("not_found", "There is no tenant 'nowhere'.")
