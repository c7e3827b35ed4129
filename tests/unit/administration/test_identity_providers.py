"""authgate.administration.identity_providers: create, update, delete and the view, against moto."""

from __future__ import annotations

import pytest

from authgate.administration.identity_providers import (
    Given,
    Refused,
    create,
    created,
    delete,
    update,
    view,
)
from authgate.identity_providers.errors import IdentityProviderNotFound
from authgate.operators.input import InvalidInput

ACME = Given(issuer="https://sso.acme.example", protocol="oidc", client_id="authgate", label="Acme SSO",
             domains=["acme.example"])
SECRET = {"client_secret": "acme-secret-0123456789"}


@pytest.fixture
def sealing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "k" * 48)


def test_create_seals_the_secret_and_refuses_what_clashes(aws: None, sealing: None) -> None:
    from authgate.federation import secrets
    from authgate.stores.identity_providers import IdentityProviderStore

    made = create("demo", ACME, SECRET)
    assert (made.idp_id, made.sign_in, made.domains) == ("acme-sso", True, ("acme.example",))
    stored = IdentityProviderStore().get("demo", "https://sso.acme.example")
    assert stored == made and secrets.unseal(stored, "client_secret") == SECRET["client_secret"]
    with pytest.raises(Refused, match="^tenant 'demo' already trusts 'https://sso.acme.example' "):
        create("demo", ACME._replace(idp_id="other", domains=None), SECRET)
    with pytest.raises(Refused, match="^domain 'acme.example' already sends people to https://sso.acme.example "):
        create("demo", ACME._replace(issuer="https://b.example", idp_id="b"), SECRET)


def test_what_a_protocol_needs_is_checked_before_anything_is_stored() -> None:
    with pytest.raises(InvalidInput, match="^--protocol oidc needs --client-secret-file FILE"):
        created("demo", ACME, {})
    with pytest.raises(InvalidInput, match="^--step-up 'always' is not one of local, upstream$"):
        created("demo", ACME._replace(step_up="always"), SECRET)
    google = created("demo", Given(preset="google", protocol="oidc", client_id="g"), SECRET)
    assert (google.issuer, google.idp_id, google.label) == ("https://accounts.google.com", "google", "Google")


def test_update_changes_what_is_given_and_keeps_the_rest(aws: None, sealing: None) -> None:
    from authgate.federation import secrets

    create("demo", ACME, SECRET)
    changed = update("demo", "https://sso.acme.example", Given(no_domains=True, trust_mfa=["mfa"], trust_email=True),
                     {})
    assert (changed.domains, changed.trust_mfa, changed.mfa_values, changed.trust_email, changed.label) == (
        (), True, ("mfa",), True, "Acme SSO")
    assert secrets.unseal(changed, "client_secret") == SECRET["client_secret"]
    with pytest.raises(IdentityProviderNotFound):
        update("demo", "https://nobody.example", Given(label="x"), {})


def test_delete_says_what_stops(aws: None, sealing: None) -> None:
    create("demo", ACME, SECRET)
    assert delete("demo", "https://sso.acme.example") == (
        "tenant demo no longer trusts https://sso.acme.example: its ID-JAGs and sign-ins are refused from now on")
    with pytest.raises(IdentityProviderNotFound):
        delete("demo", "https://sso.acme.example")


def test_the_view_of_a_saml_idp_says_what_to_register_for_the_tenant() -> None:
    from authgate.administration.saml_metadata import given
    from tests.saml_support import metadata

    idp = created("acme", Given(saml=given(metadata(), "metadata"), label="Acme"), {})
    shown = view(idp, "https://auth.example")
    assert {k: shown[k] for k in ("redirect_uri", "post_logout_redirect_uri", "sp_entity_id", "sp_acs_url",
                                   "sp_slo_url", "sp_metadata_url", "client_secret_set")} == {
        "redirect_uri": None, "post_logout_redirect_uri": None,
        "sp_entity_id": "https://auth.example/saml/acme", "sp_acs_url": "https://auth.example/saml/acme/acs",
        "sp_slo_url": "https://auth.example/saml/acme/slo", "sp_metadata_url": "https://auth.example/saml/acme/metadata",
        "client_secret_set": False}
    assert "sp_acs_url" not in view(created("acme", ACME, SECRET), "https://auth.example")


def test_an_openid_provider_with_linked_people_becomes_a_saml_idp_only_relinking_them(
        aws: None, sealing: None) -> None:
    from authgate.administration.saml_metadata import given as read_metadata
    from authgate.stores.identity_providers import IdentityProviderStore
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore
    from authgate.users.linked_identities import LinkedIdentity
    from tests.saml_support import metadata

    made = create("demo", ACME, SECRET)
    bob = UserStore().put_hash("demo", "bob", "!")
    LinkedIdentityStore().link(LinkedIdentity("demo", ACME.issuer, "00u-bob", bob.user_id, "bob", 1, "proof"))
    saml = Given(protocol="saml", saml=read_metadata(metadata(entity_id=ACME.issuer), "the metadata XML"))
    with pytest.raises(Refused, match="^https://sso.acme.example has 1 linked identity, each named by an OpenID "
                                      "Connect sub, which a SAML NameID does not match: give --relink-by-email"):
        update("demo", ACME.issuer, saml, {})
    assert IdentityProviderStore().get("demo", ACME.issuer) == made
    changed = update("demo", ACME.issuer, saml._replace(relink_by_email=True, trust_email=True), {})
    assert (changed.protocol, changed.idp_id, changed.trust_email) == ("saml", "acme-sso", True)
    assert LinkedIdentityStore().of_issuer("demo", ACME.issuer) == ()
