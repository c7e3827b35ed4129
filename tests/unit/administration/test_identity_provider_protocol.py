"""authgate.administration.identity_provider_protocol: a sign-in IdP's change of protocol, either way, and the people
linked to it (against moto where links are read)."""

from __future__ import annotations

import pytest

from authgate.administration.identity_provider_protocol import (
    links,
    prepared,
    refusal,
    switched,
    unlink,
)
from authgate.identity_providers.model import IdentityProvider
from authgate.operators.input import InvalidInput
from authgate.users.linked_identities import LinkedIdentity

ISSUER = "https://idp.acme.example/realms/acme"
SAML = IdentityProvider("demo", ISSUER, idp_id="acme", protocol="saml", sign_in=True,
                        saml={"entity_id": ISSUER, "sso_url": "https://idp.acme.example/sso"})
OIDC = IdentityProvider("demo", ISSUER, idp_id="acme", protocol="oidc", sign_in=True, client_id="authgate")


def test_only_a_change_between_the_sign_in_protocols_is_a_switch() -> None:
    assert (switched(SAML, SAML._replace(protocol="oidc")), switched(OIDC, OIDC._replace(protocol="saml"))) == (
        True, True)
    jag_only = IdentityProvider("demo", ISSUER)
    assert (switched(jag_only, jag_only._replace(protocol="oidc")), switched(SAML, SAML._replace(label="x"))) == (
        False, False)


def test_an_openid_provider_made_from_a_saml_idp_drops_its_metadata_unless_new_metadata_is_given() -> None:
    assert prepared(SAML, SAML._replace(protocol="oidc"), False, False) == SAML._replace(protocol="oidc", saml=None)
    # Given metadata stays, for `complete` to refuse it with the command's words.
    assert prepared(SAML, SAML._replace(protocol="oidc"), False, True).saml == SAML.saml
    # The other way, the client stays (unused), as before.
    assert prepared(OIDC, OIDC._replace(protocol="saml"), False, False) == OIDC._replace(protocol="saml")


def test_what_a_change_needs_is_refused_in_the_commands_words() -> None:
    urn = SAML._replace(issuer="urn:acme:idp")
    with pytest.raises(InvalidInput, match=r"^--protocol oidc needs the IdP's issuer to be its OpenID issuer, an "
                                           r"https URL; 'urn:acme:idp' is not one \(an OpenID Provider of another "
                                           r"issuer is another IdP: `authgate idps create`\)$"):
        prepared(urn, urn._replace(protocol="oidc"), False, False)
    with pytest.raises(InvalidInput, match="^--relink-by-email links people again by their verified email: give "
                                           "--trust-email too$"):
        prepared(SAML, SAML._replace(protocol="oidc"), True, False)
    assert prepared(SAML, SAML._replace(protocol="oidc", trust_email=True), True, False).trust_email
    with pytest.raises(InvalidInput, match="^--relink-by-email is for a change of --protocol between oidc and saml$"):
        prepared(SAML, SAML._replace(label="x", trust_email=True), True, False)


def test_the_refusal_counts_the_links_and_names_both_subjects() -> None:
    assert refusal(OIDC, OIDC._replace(protocol="saml"), 2) == (
        f"{ISSUER} has 2 linked identities, each named by an OpenID Connect sub, which a SAML NameID does not match: "
        "give --relink-by-email (with --trust-email) to remove them and link each person again by their verified "
        "email at their next sign-in")


def test_the_links_of_the_idp_are_read_for_a_switch_and_removed_up_to_its_second(aws: None) -> None:
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore

    store = LinkedIdentityStore()
    bob = UserStore().put_hash("demo", "bob", "!")
    old = LinkedIdentity("demo", ISSUER, "persistent|b", bob.user_id, "bob", 100, "proof")
    new = LinkedIdentity("demo", ISSUER, "b-sub", bob.user_id, "bob", 101, "verified_email")
    other = LinkedIdentity("demo", "https://other.example", "b", bob.user_id, "bob", 100, "proof")
    for link in (old, new, other):
        store.link(link)
    assert links(SAML, SAML._replace(label="x")) == ()  # no switch: nothing read
    assert sorted(links(SAML, SAML._replace(protocol="oidc"))) == sorted([old, new])
    assert unlink(SAML, 100) == 1
    assert sorted(store.of_user(bob.user_id)) == sorted([new, other])
