"""LinkedIdentityStore against moto: one GetItem by (tenant, issuer, subject), a user's list by index, links made
only where none is and only for the user they name, provisioning and deletion both-or-neither."""

from __future__ import annotations

import pytest

from authgate.stores.batch import BatchRead
from authgate.stores.linked_identities import LinkedIdentityStore
from authgate.stores.users import UserStore
from authgate.users.errors import LinkRefused, UserExists, UserNotFound
from authgate.users.linked_identities import LinkedIdentity, identity_key
from authgate.users.model import User
from tests.functional.token_support import dynamodb_calls

OKTA = "https://acme.okta.example"
ENTRA = "https://login.microsoftonline.com/acme/v2.0"


def a_user(username: str = "bob", **fields: object) -> User:
    return UserStore().put_hash("demo", username, "!", **fields)  # type: ignore[arg-type]


def link_of(user: User, issuer: str = OKTA, subject: str = "00u1", at: int = 1_750_000_000) -> LinkedIdentity:
    return LinkedIdentity("demo", issuer, subject, user.user_id, user.username, at,
                          "proof")


def test_a_link_is_found_by_tenant_issuer_and_subject_in_one_get_item(aws: None) -> None:
    store, bob = LinkedIdentityStore(), a_user()
    store.link(link_of(bob))

    with dynamodb_calls() as calls:
        found = store.get("demo", OKTA, "00u1")
    assert (found, dict(calls)) == (link_of(bob), {"GetItem": 1})
    # The same subject at another IdP, or in another tenant, is another person.
    assert (store.get("demo", ENTRA, "00u1"), store.get("acme", OKTA, "00u1"), store.get("demo", OKTA, "00u2")) == (
        None, None, None)


def test_a_link_is_read_in_a_requests_batch(aws: None) -> None:
    store, bob = LinkedIdentityStore(), a_user()
    store.link(link_of(bob))
    reads = BatchRead()
    found, absent = store.prefetch(reads, "demo", OKTA, "00u1"), store.prefetch(reads, "demo", ENTRA, "00u1")
    reads.run()
    assert (store.found(found), store.found(absent)) == (link_of(bob), None)
    assert store.prefetch(reads, "demo", OKTA, "x" * 1025) is None
    assert store.found(None) is None


def test_the_key_is_one_length_and_unambiguous() -> None:
    assert len(identity_key(OKTA, "x" * 1024)) == len(identity_key("i", "s")) == 43
    # The NUL between them: an issuer ending where a subject begins is another identity.
    assert identity_key("https://a.example/x", "y") != identity_key("https://a.example/", "xy")


def test_a_users_links_are_listed_oldest_first_and_only_theirs(aws: None) -> None:
    store, bob, carol = LinkedIdentityStore(), a_user(), a_user("carol")
    store.link(link_of(bob, ENTRA, "b-entra", at=2))
    store.link(link_of(bob, OKTA, "b-okta", at=1))
    store.link(link_of(carol, OKTA, "c-okta"))
    assert [link.subject for link in store.of_user(bob.user_id)] == ["b-okta", "b-entra"]
    assert store.of_user("") == ()


def test_an_identity_linked_already_is_never_linked_again(aws: None) -> None:
    store, bob, carol = LinkedIdentityStore(), a_user(), a_user("carol")
    store.link(link_of(bob))
    with pytest.raises(LinkRefused, match="linked already"):
        store.link(link_of(carol))
    with pytest.raises(LinkRefused, match="linked already"):
        store.link(link_of(bob))
    assert store.get("demo", OKTA, "00u1") == link_of(bob)


@pytest.mark.parametrize("change", ["disabled", "deleted", "replaced"])
def test_a_link_needs_its_user_as_it_was_and_enabled(aws: None, change: str) -> None:
    store, bob = LinkedIdentityStore(), a_user()
    if change == "disabled":
        UserStore().set_disabled("demo", "bob", True)
    elif change == "deleted":
        UserStore().delete("demo", "bob")
    else:
        a_user()  # another person under the same username: a new user_id
    with pytest.raises(LinkRefused, match="the user is gone, another person now, or disabled"):
        store.link(link_of(bob))
    assert store.get("demo", OKTA, "00u1") is None


def test_provisioning_writes_the_user_and_its_link_or_neither(aws: None) -> None:
    store = LinkedIdentityStore()
    new = User("demo", "dana", 0, 0, user_id="usr_dana", email="dana@acme.example", created_at=5,
               federated_only=True)
    store.provision(new, link_of(new))
    assert (UserStore().get("demo", "dana"), store.get("demo", OKTA, "00u1")) == (new, link_of(new))
    item = UserStore().find({"tenant_id": {"S": "demo"}, "username": {"S": "dana"}})
    assert item is not None and "password_hash" not in item and item["passkeys"] == {"N": "0"}
    assert UserStore().by_email("demo", "DANA@acme.example") == [new]

    taken = new._replace(user_id="usr_other")
    with pytest.raises(UserExists):
        store.provision(taken, link_of(taken, subject="00u2"))
    linked = new._replace(username="dana-2", user_id="usr_dana2")
    with pytest.raises(LinkRefused):
        store.provision(linked, link_of(linked))
    assert (UserStore().get("demo", "dana-2"), store.get("demo", OKTA, "00u2")) == (None, None)


def test_unlinking_is_conditional_on_the_links_user(aws: None) -> None:
    store, bob = LinkedIdentityStore(), a_user()
    store.link(link_of(bob))
    assert store.unlink(link_of(bob)._replace(user_id="usr_someone_else")) is False
    assert store.unlink(link_of(bob)) is True
    assert store.get("demo", OKTA, "00u1") is None and store.unlink(link_of(bob)) is False


def test_deleting_a_user_removes_their_links_with_them(aws: None) -> None:
    store, bob, carol = LinkedIdentityStore(), a_user(), a_user("carol")
    store.link(link_of(bob, OKTA, "b1"))
    store.link(link_of(bob, ENTRA, "b2"))
    store.link(link_of(carol, OKTA, "c1"))

    with dynamodb_calls() as calls:
        store.delete_user(bob)
    assert dict(calls) == {"Query": 1, "TransactWriteItems": 1}
    assert (UserStore().get("demo", "bob"), store.of_user(bob.user_id), store.get("demo", OKTA, "b1")) == (
        None, (), None)
    assert store.get("demo", OKTA, "c1") == link_of(carol, OKTA, "c1")
    with pytest.raises(UserNotFound):
        store.delete_user(bob)
    # Another person under the name is not deleted for the one before.
    a_user()
    with pytest.raises(UserNotFound):
        store.delete_user(bob)
    assert UserStore().get("demo", "bob") is not None


def test_an_idps_links_are_listed_whoever_they_name_and_only_its_own(aws: None) -> None:
    store, bob, carol = LinkedIdentityStore(), a_user(), a_user("carol")
    store.link(link_of(bob, OKTA, "b-okta"))
    store.link(link_of(carol, OKTA, "c-okta"))
    store.link(link_of(bob, ENTRA, "b-entra"))
    store.provision(User("acme", "dave", 0, 0, user_id="usr_dave"),
                    LinkedIdentity("acme", OKTA, "d-okta", "usr_dave", "dave", 1, "provisioned"))
    assert sorted(store.of_issuer("demo", OKTA)) == sorted([link_of(bob, OKTA, "b-okta"),
                                                            link_of(carol, OKTA, "c-okta")])
    assert store.of_issuer("demo", "https://nobody.example") == ()
