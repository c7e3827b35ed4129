"""oauth.token.id_jag_user.keys: what the client's batch reads for an ID-JAG's person, before anything is verified."""

from __future__ import annotations

from authgate.identity_providers.model import IdentityProvider
from authgate.oauth.token.id_jag_user import Guess, keys
from authgate.users.linked_identities import identity_key

ISSUER = "https://acme.okta.example"


def link_key(subject: str) -> dict[str, dict[str, str]]:
    return {"tenant_id": {"S": "demo"}, "identity": {"S": identity_key(ISSUER, subject)}}


def user_key(username: str) -> dict[str, dict[str, str]]:
    return {"tenant_id": {"S": "demo"}, "username": {"S": username}}


def test_the_link_and_the_user_whose_username_is_the_subject_for_user_match_sub(aws: None) -> None:
    assert keys("demo", IdentityProvider("demo", ISSUER), "alice") == (
        {"LinkedIdentitiesTable": [link_key("alice")], "UsersTable": [user_key("alice")]},
        Guess("demo", ISSUER, "alice", "alice"))


def test_only_the_link_when_no_username_is_known_for_the_identity(aws: None) -> None:
    assert keys("demo", IdentityProvider("demo", ISSUER, user_match="email"), "00u1") == (
        {"LinkedIdentitiesTable": [link_key("00u1")]}, Guess("demo", ISSUER, "00u1", ""))


def test_nothing_for_an_identity_no_link_can_hold(aws: None) -> None:
    assert keys("demo", IdentityProvider("demo", ISSUER), "x" * 1025) == ({}, None)
    # A subject too long for a username is read as a link, without a user.
    assert keys("demo", IdentityProvider("demo", ISSUER), "x" * 300) == (
        {"LinkedIdentitiesTable": [link_key("x" * 300)]}, Guess("demo", ISSUER, "x" * 300, ""))
