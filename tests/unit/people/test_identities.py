"""people.identities: a person's linked identities unlinked by the IdP's issuer or id, for `authgate users` and the
console alike; what is not there is a LookupError saying what."""

from __future__ import annotations

import pytest

from authgate.clock import ManualClock

OKTA = "https://acme.okta.example"


@pytest.fixture
def bob(aws: None, clock: ManualClock) -> None:
    from authgate.stores.users import UserStore

    UserStore().put_hash("demo", "bob", "hash", overwrite=False, user_id="usr_bob")


@pytest.mark.usefixtures("bob")
def test_an_identity_is_unlinked_by_its_issuer_and_what_is_not_there_says_what() -> None:
    from authgate.people.identities import NotLinked, unlink
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.users.linked_identities import LinkedIdentity

    LinkedIdentityStore().link(LinkedIdentity("demo", OKTA, "00u1", "usr_bob", "bob", 1_750_000_000, "proof"))
    with pytest.raises(NotLinked) as none:
        unlink("demo", "bob", "https://other.example")
    assert str(none.value) == "user 'bob' of tenant 'demo' has no identity linked at 'https://other.example'"
    done = unlink("demo", "bob", OKTA)
    assert done.said == f"identity 00u1 of {OKTA} unlinked from user bob in tenant demo"
    assert done.figures["unlinked"] == [{"idp_id": "", "label": "", "issuer": OKTA, "subject": "00u1",
                                         "linked_at": 1_750_000_000, "via": "proof"}]
    assert LinkedIdentityStore().of_user("usr_bob") == ()


@pytest.mark.usefixtures("bob")
def test_an_identity_is_unlinked_by_the_idps_id_and_shown_with_its_label() -> None:
    from authgate.identity_providers.model import IdentityProvider
    from authgate.people.identities import linked, unlink, views
    from authgate.stores.identity_providers import IdentityProviderStore
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore
    from authgate.users.linked_identities import LinkedIdentity

    IdentityProviderStore().create(IdentityProvider("demo", OKTA, idp_id="okta", label="Okta"))
    store = LinkedIdentityStore()
    store.link(LinkedIdentity("demo", OKTA, "00u1", "usr_bob", "bob", 1_750_000_000, "proof"))
    store.link(LinkedIdentity("demo", "https://gone.example", "g-1", "usr_bob", "bob", 1_750_000_001))
    bob = UserStore().get("demo", "bob")
    assert bob is not None
    assert sorted(views("demo", linked(bob)), key=lambda v: v["issuer"]) == [
        {"idp_id": "okta", "label": "Okta", "issuer": OKTA, "subject": "00u1", "linked_at": 1_750_000_000,
         "via": "proof"},
        {"idp_id": "", "label": "", "issuer": "https://gone.example", "subject": "g-1", "linked_at": 1_750_000_001,
         "via": ""}]  # an IdP no longer trusted: no id nor label
    done = unlink("demo", "bob", "okta")
    assert (done.said, [v["issuer"] for v in done.figures["unlinked"]]) == (
        f"identity 00u1 of {OKTA} unlinked from user bob in tenant demo", [OKTA])
    assert [link.issuer for link in store.of_user("usr_bob")] == ["https://gone.example"]


@pytest.mark.usefixtures("bob")
def test_a_person_replaced_loses_every_link_and_nobody_has_none_to_unlink() -> None:
    from authgate.people.identities import remove_links, unlink
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore
    from authgate.users.errors import UserNotFound
    from authgate.users.linked_identities import LinkedIdentity

    store = LinkedIdentityStore()
    for n in range(2):
        store.link(LinkedIdentity("demo", f"https://idp{n}.example", "s", "usr_bob", "bob", 1_750_000_000))
    bob = UserStore().get("demo", "bob")
    assert bob is not None
    assert (remove_links(bob), store.of_user("usr_bob"), remove_links(bob)) == (2, (), 0)
    with pytest.raises(UserNotFound):
        unlink("demo", "nobody", OKTA)
