"""people.accounts and people.profile: what only an owner does to an account, checked as `authgate users` checks it."""

from __future__ import annotations

import pytest

from authgate.administration.input import InvalidInput

ISSUER = "http://127.0.0.1:3000"


@pytest.mark.parametrize(("password", "reason"), [
    ("short", "the password must have at least 8 characters"),
    ("x" * 1025, "the password must have at most 1024 characters"),
    ("with\ttab-1", "the password contains a control character"),
    ("dana-the-user", "the password must not be the username"),
])
def test_a_new_password_is_refused_for_one_reason(password: str, reason: str) -> None:
    from authgate.people.profile import new_password

    with pytest.raises(InvalidInput) as refused:
        new_password(password, "dana-the-user")
    assert str(refused.value) == reason


def test_create_checks_then_writes_and_says_what_it_did(aws: None) -> None:
    from authgate.people.accounts import create
    from authgate.stores.users import UserStore

    with pytest.raises(InvalidInput, match="--email-verified needs --email"):
        create("demo", "dana", "long-enough-1", email_verified=True)
    with pytest.raises(InvalidInput, match="--username must not be empty"):
        create("demo", "", "long-enough-1")
    assert list(UserStore().of_tenant("demo")) == []
    done = create("demo", "dana", "long-enough-1", name="Dana", email="dana@demo.example")
    assert (done.said, done.figures, done.user.name, done.user.email_verified) == (
        "user dana created in tenant demo", {}, "Dana", False)
    with pytest.raises(InvalidInput) as taken:
        create("demo", "erin", "long-enough-1", email="DANA@demo.example")
    assert str(taken.value) == "the email 'DANA@demo.example' is already user 'dana''s in tenant 'demo'"


def test_update_reset_and_delete_of_nobody_are_user_not_found(aws: None) -> None:
    from authgate.people.accounts import delete, reset_password, update
    from authgate.users.errors import UserNotFound

    for act in (lambda: update("demo", "nobody", name="N"), lambda: reset_password("demo", "nobody", "long-enough-1",
                                                                                   ISSUER),
                lambda: delete("demo", "nobody", ISSUER)):
        with pytest.raises(UserNotFound):
            act()


def test_a_temporary_password_must_be_changed_and_ends_the_sessions(aws: None) -> None:
    from authgate.people.accounts import delete, reset_password, temporary_password
    from authgate.stores.sessions import SessionStore
    from authgate.stores.users import UserStore

    UserStore().put_hash("demo", "bob", "hash", overwrite=False, user_id="usr_bob")
    SessionStore().create(tenant_id="demo", user_id="usr_bob", username="bob", acr="password", amr=("pwd",),
                          generation=0)
    password = temporary_password()
    assert len(password) == 22 and password != temporary_password()
    done = reset_password("demo", "bob", password, ISSUER)
    assert done.user.must_change_password and SessionStore().standing(done.user) == []
    assert done.said == ("user bob given a temporary password (changed at the next sign-in; its sessions and refresh "
                         "tokens end now) in tenant demo")
    gone = delete("demo", "bob", ISSUER)
    assert (gone.said, gone.figures) == (
        "user bob deleted from tenant demo (its sessions and refresh tokens end now)",
        {"tenant_id": "demo", "username": "bob", "user_id": "usr_bob", "deleted": True})
    assert UserStore().get("demo", "bob") is None
