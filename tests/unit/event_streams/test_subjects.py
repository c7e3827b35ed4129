"""RFC 9493 subject identifiers as a stream's subjects (SSF 1.0 3, 8.1.3.1)."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.event_streams import subjects

ISS = "https://auth.example.com"


@pytest.mark.parametrize("subject", [
    {"format": "email", "email": "a@example.com"},
    {"format": "iss_sub", "iss": ISS, "sub": "usr_1"},
    {"format": "opaque", "id": "x"},
    {"format": "phone_number", "phone_number": "+12065550100"},
    {"format": "account", "uri": "acct:a@example.com"},
    {"format": "complex", "user": {"format": "email", "email": "a@example.com"}, "tenant": {"format": "opaque",
                                                                                          "id": "demo"}},
    {"format": "aliases", "identifiers": [{"format": "email", "email": "a@example.com"},
                                          {"format": "opaque", "id": "7"}]},
])
def test_well_formed_subjects_are_kept_as_sent(subject: dict[str, Any]) -> None:
    assert subjects.checked(subject) == subject


@pytest.mark.parametrize(("subject", "pointer", "detail"), [
    ("a@example.com", "/subject", "A subject identifier is a JSON object with a format (RFC 9493 3)."),
    ({"email": "a@example.com"}, "/subject/format", "A subject identifier names its format (RFC 9493 3)."),
    ({"format": "nickname", "name": "al"}, "/subject/format",
     "The subject format 'nickname' is not one this transmitter knows (RFC 9493 3.2)."),
    ({"format": "iss_sub", "iss": ISS}, "/subject/sub",
     "The iss_sub format's sub is a non-empty string of at most 1024 characters (RFC 9493 3.2)."),
    ({"format": "complex", "user": {"format": "complex", "user": {"format": "opaque", "id": "1"}}},
     "/subject/user/format", "The subject format 'complex' is not one this transmitter knows (RFC 9493 3.2)."),
    ({"format": "aliases", "identifiers": [{"format": "aliases", "identifiers": []}]},
     "/subject/identifiers/0/format", "The subject format 'aliases' is not one this transmitter knows (RFC 9493 3.2)."),
    ({"format": "complex"}, "/subject", "A complex subject has at least one simple subject (SSF 1.0 3.3)."),
])
def test_malformed_subjects_name_the_member_at_fault(subject: object, pointer: str, detail: str) -> None:
    with pytest.raises(subjects.InvalidSubject) as refused:
        subjects.checked(subject)
    assert (refused.value.pointer, refused.value.detail) == (pointer, detail)


def test_a_user_is_named_by_iss_sub_and_email_alone_or_as_a_complex_user() -> None:
    """SSF 1.0 8.1.3.1: a complex subject's undefined members match anything; emails compare lower-cased."""
    keys = subjects.user_keys(ISS, "usr_1", "Alice@Example.com")
    named = [{"format": "iss_sub", "iss": ISS, "sub": "usr_1"}, {"format": "email", "email": "alice@example.com"},
             {"format": "complex", "user": {"format": "iss_sub", "iss": ISS, "sub": "usr_1"}},
             {"format": "complex", "user": {"format": "email", "email": "ALICE@example.com"}}]
    assert sorted(keys) == sorted(subjects.key(subject) for subject in named)
    assert subjects.key({"format": "iss_sub", "iss": ISS, "sub": "usr_2"}) not in keys
    assert subjects.user_keys(ISS, "usr_1") == (subjects.key(named[0]), subjects.key(named[2]))
