"""federation.identities against moto: who an upstream identity signs in as, and what stands in the way.

The email takeover brokers keep shipping is tested here: an attacker's account at an IdP that claims
alice's email (unverified, or verified by an IdP not trusted for emails) never signs in as alice."""

from __future__ import annotations

import pytest

from authgate.federation import identities
from authgate.federation.errors import UpstreamRefused
from authgate.federation.identities import Resolution, link, resolve
from authgate.federation.upstream import UpstreamIdentity
from authgate.identity_providers.model import IdentityProvider
from authgate.stores.linked_identities import LinkedIdentityStore
from authgate.stores.users import UserStore
from authgate.users.errors import LinkRefused
from authgate.users.linked_identities import LinkedIdentity
from authgate.users.model import User
from tests.functional.token_support import dynamodb_calls

ISSUER = "https://acme.okta.example"
OKTA = IdentityProvider("demo", ISSUER)
PROVISIONS = OKTA._replace(create_users=True)
TRUSTED = PROVISIONS._replace(trust_email=True)
ALICE_EMAIL = "alice@acme.example"


@pytest.fixture
def alice(aws: None) -> User:
    """A local account with a password (its hash stands in: no scrypt here) and a verified email."""
    return UserStore().put_hash("demo", "alice", "!", email=ALICE_EMAIL, email_verified=True)


def upstream(subject: str = "00u1", **claims: object) -> UpstreamIdentity:
    return UpstreamIdentity("demo", ISSUER, subject, **claims)  # type: ignore[arg-type]


def linked_to(user: User, subject: str = "00u1", via: str = "proof") -> LinkedIdentity:
    made = LinkedIdentity("demo", ISSUER, subject, user.user_id, user.username, 1_750_000_000, via)
    LinkedIdentityStore().link(made)
    return made


# --------------------------------------------------------------------------- signed in through a link


def test_a_linked_identity_signs_in_as_its_user_in_two_reads(alice: User) -> None:
    made = linked_to(alice)
    with dynamodb_calls() as calls:
        resolution = resolve(OKTA, upstream(email="someone-else@example.com"))
    assert resolution == Resolution("signed_in", alice, link=made)
    assert resolution.signs_in and dict(calls) == {"GetItem": 2}


def test_a_link_wins_over_the_email_and_over_provisioning(alice: User) -> None:
    bob = UserStore().put_hash("demo", "bob", "!", email="bob@acme.example", email_verified=True)
    made = linked_to(bob)
    assert resolve(TRUSTED, upstream(email=ALICE_EMAIL, email_verified=True)) == Resolution("signed_in", bob, link=made)


def test_a_disabled_users_identity_is_refused(alice: User) -> None:
    made = linked_to(alice)
    UserStore().set_disabled("demo", "alice", True)
    resolution = resolve(TRUSTED, upstream(email=ALICE_EMAIL, email_verified=True))
    assert resolution == Resolution("refused", reason="disabled", link=made)
    assert not resolution.signs_in


def test_a_link_outlived_by_its_user_is_removed_and_counts_for_nothing(alice: User) -> None:
    made = linked_to(alice)
    # The user replaced under the same username (a new person, a new user_id), past the store's care.
    carol = UserStore().put_hash("demo", "alice", "!")
    resolution = resolve(OKTA, upstream())
    assert resolution == Resolution("refused", reason="not_provisioned")
    assert LinkedIdentityStore().get("demo", ISSUER, "00u1") is None
    assert carol.user_id != made.user_id


# --------------------------------------------------------------------------- the email takeover


@pytest.mark.parametrize(("idp", "verified"), [
    (TRUSTED, False),      # the IdP is trusted for emails, but says this one is not verified
    (PROVISIONS, True),    # the IdP says verified, but is not trusted for emails
    (PROVISIONS, False),
    (OKTA, True),
])
def test_an_idp_account_claiming_alices_email_never_signs_in_as_alice(alice: User, idp: IdentityProvider,
                                                                      verified: bool) -> None:
    attacker = upstream("attacker-sub", email=ALICE_EMAIL.upper(), email_verified=verified, name="Mallory")
    resolution = resolve(idp, attacker)
    # Only alice's own proof (her password or passkey, then link()) links the identity to her account.
    assert resolution == Resolution("link_required", alice)
    assert not resolution.signs_in
    assert LinkedIdentityStore().get("demo", ISSUER, "attacker-sub") is None
    assert [u.username for u in UserStore().of_tenant("demo")] == ["alice"]  # nothing provisioned either
    # Resolved again, the same answer: nothing was linked on the way.
    assert resolve(idp, attacker) == resolution


def test_a_trusted_idps_verified_email_links_the_account_whose_email_is_verified(alice: User) -> None:
    resolution = resolve(TRUSTED, upstream(email=ALICE_EMAIL, email_verified=True))
    made = LinkedIdentityStore().get("demo", ISSUER, "00u1")
    assert made is not None and (made.user_id, made.username, made.via) == (alice.user_id, "alice", "verified_email")
    assert resolution == Resolution("linked", alice, link=made)
    # From now on, through the link.
    assert resolve(TRUSTED, upstream()) == Resolution("signed_in", alice, link=made)


def test_an_account_whose_own_email_is_unverified_is_never_linked_by_email(aws: None) -> None:
    """Pre-account takeover: someone registered the email before its owner came through their IdP."""
    squatter = UserStore().put_hash("demo", "squatter", "!", email=ALICE_EMAIL)
    assert resolve(TRUSTED, upstream(email=ALICE_EMAIL, email_verified=True)) == Resolution("link_required", squatter)


def test_an_email_several_accounts_claim_links_to_none(alice: User) -> None:
    UserStore().put_hash("demo", "alice-2", "!", email=ALICE_EMAIL, email_verified=True)
    assert resolve(TRUSTED, upstream(email=ALICE_EMAIL, email_verified=True)) == Resolution("link_required")


def test_a_disabled_account_is_not_linked_by_email(alice: User) -> None:
    UserStore().set_disabled("demo", "alice", True)
    assert resolve(TRUSTED, upstream(email=ALICE_EMAIL, email_verified=True)) == Resolution("refused",
                                                                                            reason="disabled")
    assert LinkedIdentityStore().get("demo", ISSUER, "00u1") is None


def test_an_idp_matching_users_by_email_for_id_jags_is_trusted_for_verified_emails(alice: User) -> None:
    legacy = OKTA._replace(user_match="email")
    assert resolve(legacy, upstream(email=ALICE_EMAIL)).outcome == "link_required"
    assert resolve(legacy, upstream(email=ALICE_EMAIL, email_verified=True)).outcome == "linked"


# --------------------------------------------------------------------------- first sign-in


def test_no_account_and_no_provisioning_is_refused_ask_your_administrator(aws: None) -> None:
    assert resolve(OKTA, upstream(email="dana@acme.example", email_verified=True)) == Resolution(
        "refused", reason="not_provisioned")


def test_provisioning_makes_a_federated_only_user_and_its_link_in_one_write(aws: None) -> None:
    with dynamodb_calls() as calls:
        resolution = resolve(PROVISIONS, upstream(email="Dana.Scully@acme.example", name="Dana Scully"))
    # The link's GetItem, the email's Query, the user and its link in one TransactWriteItems: no scrypt.
    assert dict(calls) == {"GetItem": 1, "Query": 1, "TransactWriteItems": 1}
    user = resolution.user
    assert user is not None and resolution.outcome == "provisioned"
    # Not trusted for emails: the username is the subject, not what an unverified email says.
    assert (user.username, user.email, user.email_verified, user.name, user.federated_only) == (
        "00u1", "Dana.Scully@acme.example", False, "Dana Scully", True)
    assert UserStore().get("demo", "00u1") == user
    assert resolution.link == LinkedIdentity("demo", ISSUER, "00u1", user.user_id, "00u1", user.created_at,
                                             "provisioned")
    assert resolve(PROVISIONS, upstream()) == Resolution("signed_in", user, link=resolution.link)


def test_a_trusted_verified_email_names_the_new_user_made_unique(alice: User) -> None:
    UserStore().put_hash("demo", "dana", "!")
    first = resolve(TRUSTED, upstream("s1", email="Dana@acme.example", email_verified=True)).user
    second = resolve(TRUSTED, upstream("s2", email="dana@other.example", email_verified=True)).user
    assert first is not None and second is not None
    assert first.username.startswith("dana-") and len(first.username) == len("dana-") + 4
    assert second.username.startswith("dana-") and second.username != first.username
    assert (first.email_verified, second.email_verified) == (True, True)


@pytest.mark.parametrize(("subject", "email", "username"), [
    ("CN=Dana Scully,O=Acme", "", "cn-dana-scully-o-acme"),
    ("urn:oasis:names:tc:SAML:2.0:nameid-format:persistent|_7a3f", "", "urn-oasis-names-tc-saml-2.0-nameid-format-persis"),
    ("..--", "", "user"),
    ("00u1", "../Admin@acme.example", "admin"),
])
def test_a_derived_username_holds_only_safe_characters(aws: None, subject: str, email: str, username: str) -> None:
    user = resolve(TRUSTED, upstream(subject, email=email, email_verified=bool(email))).user
    assert user is not None and user.username == username


# --------------------------------------------------------------------------- linking after a proof


def test_the_person_who_proved_the_account_links_it(alice: User) -> None:
    attacker_free = upstream(email=ALICE_EMAIL)
    assert resolve(OKTA, attacker_free).outcome == "link_required"
    made = link("demo", alice.user_id, OKTA, attacker_free, username="alice")
    assert (made.user_id, made.via) == (alice.user_id, "proof")
    assert resolve(OKTA, attacker_free) == Resolution("signed_in", alice, link=made)
    # Twice is the same link; another account never takes it.
    assert link("demo", alice.user_id, OKTA, attacker_free, username="alice") == made
    bob = UserStore().put_hash("demo", "bob", "!")
    with pytest.raises(LinkRefused):
        link("demo", bob.user_id, OKTA, attacker_free, username="bob")


def test_a_disabled_account_is_never_linked(alice: User) -> None:
    UserStore().set_disabled("demo", "alice", True)
    with pytest.raises(LinkRefused):
        link("demo", alice.user_id, OKTA, upstream(), username="alice")


# --------------------------------------------------------------------------- mix-up


@pytest.mark.parametrize(("answer", "reason"), [
    (UpstreamIdentity("demo", "https://other.idp.example", "00u1"), "idp_mismatch"),
    (UpstreamIdentity("acme", ISSUER, "00u1"), "idp_mismatch"),
    (UpstreamIdentity("demo", ISSUER, ""), "subject_invalid"),
    (UpstreamIdentity("demo", ISSUER, "x" * 1025), "subject_invalid"),
])
def test_an_answer_of_another_idp_is_never_resolved_against_this_one(aws: None, answer: UpstreamIdentity,
                                                                     reason: str) -> None:
    with pytest.raises(UpstreamRefused) as refused:
        resolve(OKTA, answer)
    assert refused.value.reason == reason
    with pytest.raises(UpstreamRefused):
        link("demo", "usr_x", OKTA, answer, username="x")


def test_a_link_for_another_tenant_is_refused(aws: None) -> None:
    with pytest.raises(UpstreamRefused) as refused:
        link("acme", "usr_x", OKTA, upstream(), username="x")
    assert refused.value.reason == "tenant_mismatch"


def test_trusts_email() -> None:
    assert [identities.trusts_email(idp) for idp in (OKTA, TRUSTED, OKTA._replace(user_match="email"))] == [
        False, True, True]
