"""people.consents and people.identities: withdrawing a consent and unlinking an identity, for `authgate users` and
the console alike; what is not there is a LookupError saying what."""

from __future__ import annotations

import pytest

from authgate.clock import ManualClock

OKTA = "https://acme.okta.example"


@pytest.fixture
def bob(aws: None, clock: ManualClock) -> None:
    from authgate.stores.users import UserStore

    UserStore().put_hash("demo", "bob", "hash", overwrite=False, user_id="usr_bob")


@pytest.mark.usefixtures("demo")
def test_a_consent_is_withdrawn_once_and_what_is_not_there_says_what() -> None:
    from authgate.people.consents import NoConsent, UnknownClient, withdraw_consent
    from authgate.stores.consents import ConsentStore
    from authgate.stores.users import UserStore
    from authgate.users.errors import UserNotFound

    UserStore().put_hash("demo", "dana", "hash", overwrite=False, user_id="usr_dana")  # demo's clients, not its bob
    ConsentStore().remember("demo", "usr_dana", "demo-web", ("openid",), None)
    with pytest.raises(UnknownClient, match="^no client 'nosuch'$"):
        withdraw_consent("demo", "dana", "nosuch")
    with pytest.raises(UserNotFound):
        withdraw_consent("demo", "nobody", "demo-web")
    done = withdraw_consent("demo", "dana", "demo-web")
    assert (done.said, done.figures) == (
        "consent of dana in tenant demo for client demo-web withdrawn; 0 grants revoked",
        {"tenant_id": "demo", "username": "dana", "client_id": "demo-web", "grants_revoked": 0})
    with pytest.raises(NoConsent) as none:
        withdraw_consent("demo", "dana", "demo-web")
    assert str(none.value) == "user 'dana' of tenant 'demo' has not allowed client 'demo-web'"


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
