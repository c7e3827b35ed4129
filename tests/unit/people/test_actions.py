"""people.actions: what an operator does to a person, one implementation for `authgate users` and the console."""

from __future__ import annotations

import pytest

ISSUER = "http://127.0.0.1:3000"


@pytest.mark.parametrize("action", ["disable", "enable", "unlock", "reset-mfa", "revoke-sessions",
                                    "send-reset-link"])
def test_a_person_who_is_not_there_is_user_not_found_and_nothing_is_written(aws: None, action: str) -> None:
    import boto3

    from authgate.people.actions import ACTIONS
    from authgate.stores.users import UserStore
    from authgate.users.errors import UserNotFound

    UserStore().put_hash("demo", "bob", "hash", overwrite=False, user_id="usr_bob")
    before = boto3.client("dynamodb").scan(TableName="UsersTable")["Items"]
    with pytest.raises(UserNotFound):
        ACTIONS[action]("demo", "nobody", ISSUER)
    with pytest.raises(UserNotFound):
        ACTIONS[action]("acme", "bob", ISSUER)  # bob is demo's
    assert boto3.client("dynamodb").scan(TableName="UsersTable")["Items"] == before


def test_disable_ends_the_sessions_and_enable_does_not_bring_them_back(aws: None) -> None:
    from authgate.people.actions import disable, enable
    from authgate.stores.sessions import SessionStore
    from authgate.stores.users import UserStore

    user = UserStore().put_hash("demo", "bob", "hash", overwrite=False, user_id="usr_bob")
    SessionStore().create(tenant_id="demo", user_id="usr_bob", username="bob", acr="password", amr=("pwd",),
                          generation=0)
    assert len(SessionStore().standing(user)) == 1
    done = disable("demo", "bob", ISSUER)
    assert (done.said, done.figures, done.user.disabled) == (
        "user bob disabled (its sessions and refresh tokens end now) in tenant demo", {}, True)
    done = enable("demo", "bob", ISSUER)
    assert (done.said, done.user.disabled) == ("user bob enabled in tenant demo", False)
    assert SessionStore().standing(done.user) == []
