"""people.profile: what an operator may give a person (tenant and username, name, email, a new password), checked
with the same reasons for `authgate users` and the console; an email names one person of its tenant."""

from __future__ import annotations

import pytest

from authgate.operators.input import InvalidInput
from authgate.people.profile import (
    MAX_PASSWORD,
    MAX_USERNAME,
    MIN_PASSWORD,
    email_free,
    new_password,
    person,
    profile,
)


def _refused(check: object, *args: object, **kwargs: object) -> str:
    assert callable(check)
    with pytest.raises(InvalidInput) as refused:
        check(*args, **kwargs)
    return str(refused.value)


def test_a_person_is_a_tenant_id_and_a_username_as_they_can_be_stored() -> None:
    person("acme", "Ann Example")
    person("acme", "é" * MAX_USERNAME)
    assert _refused(person, "", "ann") == "--tenant must not be empty"
    assert _refused(person, "ac me", "ann") == (
        "--tenant 'ac me' must be printable ASCII without spaces or control characters")
    assert _refused(person, "acme", "x" * (MAX_USERNAME + 1)) == f"--username is longer than {MAX_USERNAME} characters"
    assert _refused(person, "acme", "a\u200bb") == "--username 'a\\u200bb' contains the control character U+200B"
    assert _refused(person, "acme", " ann") == "--username ' ann' starts or ends with a space"


def test_a_profiles_fields_are_checked_when_given() -> None:
    profile(None, None, None, creating=True)
    profile("", "", False, creating=False)  # a change that removes them
    profile("Ann", "ann@acme.example", True, creating=True)
    profile(None, None, True, creating=False)  # a change: the email held is the one verified
    assert _refused(profile, "Ann\n", None, None, creating=False) == (
        "--name 'Ann\\n' contains the control character U+000A")
    assert _refused(profile, None, "ann", None, creating=True) == (
        "--email 'ann' is not an email address such as alice@example.com")
    assert _refused(profile, "Ann", None, True, creating=True) == "--email-verified needs --email"


@pytest.mark.parametrize(("password", "said"), [
    ("x" * (MIN_PASSWORD - 1), f"the password must have at least {MIN_PASSWORD} characters"),
    ("x" * (MAX_PASSWORD + 1), f"the password must have at most {MAX_PASSWORD} characters"),
    ("correct\thorse", "the password contains a control character"),
    ("annexample", "the password must not be the username"),
], ids=["short", "long", "control", "username"])
def test_a_password_an_operator_sets_is_refused_with_its_reason(password: str, said: str) -> None:
    assert _refused(new_password, password, "annexample") == said


def test_a_password_of_the_bounds_is_taken() -> None:
    new_password("x" * MIN_PASSWORD, "ann")
    new_password("x" * MAX_PASSWORD, "ann")
    new_password("correct horse ünïcode", "ann")


def test_an_email_names_one_person_of_its_tenant(aws: None) -> None:
    from authgate.stores.users import UserStore

    UserStore().put_hash("acme", "ann", "not-a-hash", email="ann@acme.example")
    email_free("acme", "ann", "ann@acme.example")  # her own
    email_free("globex", "bob", "ann@acme.example")  # another tenant's
    email_free("acme", "bob", None)
    assert _refused(email_free, "acme", "bob", "ann@acme.example") == (
        "the email 'ann@acme.example' is already user 'ann''s in tenant 'acme'")
