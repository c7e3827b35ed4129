"""console.people: what is typed decides the read (an email, a user id, a username's beginning), a page at a time,
in the tenants the operator's roles reach; each person's state in words; every name escaped."""

from __future__ import annotations

import pytest

from authgate.console.people import PAGE_SIZE, get_people, state
from authgate.errors import ApiError
from authgate.users.model import User
from tests.unit.console.page_support import get, main_text, signed, tenants

PERSON = User("acme", "ann", 0, 0, user_id="usr_ann")


@pytest.fixture
def acme(aws: None) -> None:
    """Tenants acme and globex; ann, bob and <b>eve</b> in acme."""
    from authgate.stores.users import UserStore

    tenants("acme", "globex")
    store = UserStore()
    store.put_hash("acme", "ann", "not-a-hash", user_id="usr_ann", name="Ann", email="ann@acme.example")
    store.put_hash("acme", "bob", "not-a-hash", user_id="usr_bob", disabled=True)
    store.put_hash("acme", "<b>eve</b>", "not-a-hash", user_id="usr_eve", name='"><i>Eve', must_change_password=True)


def test_a_persons_state_in_words() -> None:
    assert state(PERSON) == "active"
    assert state(PERSON._replace(disabled=True, must_change_password=True)) == (
        "disabled, must change the password")
    assert state(PERSON._replace(federated_only=True, locked_until=4_000_000_000)) == (
        "locked, signs in through an identity provider only")


def test_nothing_typed_lists_the_tenants_people_and_escapes_them(acme: None) -> None:
    answer = get_people(get("people", [("tenant", "acme")]), signed("owner"))
    assert main_text(answer).endswith(
        "People New person Tenant acme globex Username, email or user id Find "
        "People of acme Username Name Email State "
        '<b>eve</b> "><i>Eve - must change the password ann Ann ann@acme.example active bob - - disabled')
    body = str(answer.body)
    assert "<b>eve</b>" not in body and "&quot;&gt;&lt;i&gt;Eve" in body
    assert '<a href="http://127.0.0.1:3000/console/person?tenant=acme&amp;username=%3Cb%3Eeve%3C%2Fb%3E">' in body


@pytest.mark.parametrize(("typed", "found"), [
    ("ann@acme.example", "ann Ann ann@acme.example active"),
    ("usr_bob", "bob - - disabled"),
    ("b", "bob - - disabled"),
])
def test_what_is_typed_decides_the_read(acme: None, typed: str, found: str) -> None:
    text = main_text(get_people(get("people", [("tenant", "acme"), ("q", typed)]), signed("support", "acme")))
    assert text.endswith(f"Find People of acme matching {typed!r} Username Name Email State {found}")
    assert "New person" not in text  # support creates nobody


def test_nobody_found_says_what_was_typed(acme: None) -> None:
    text = main_text(get_people(get("people", [("tenant", "acme"), ("q", "<zed>")]), signed("auditor")))
    assert text.endswith("Find Nobody matches '<zed>'.")
    empty = main_text(get_people(get("people", [("tenant", "globex")]), signed("owner")))
    assert empty.endswith("Find Nobody is in this tenant.")


def test_usernames_come_a_page_at_a_time(acme: None) -> None:
    from authgate.stores.users import UserStore

    for number in range(PAGE_SIZE):
        UserStore().put_hash("globex", f"user{number:02}", "not-a-hash")
    whole = get_people(get("people", [("tenant", "globex")]), signed("owner"))
    assert main_text(whole).endswith("user19 - - active")  # one page holds them all: no next one
    UserStore().put_hash("globex", "user20", "not-a-hash")
    first = get_people(get("people", [("tenant", "globex")]), signed("owner"))
    assert main_text(first).endswith("user19 - - active Next page")
    assert ('<a href="http://127.0.0.1:3000/console/people?tenant=globex&amp;q=&amp;after=user19">Next page</a>'
            in str(first.body))
    more = get_people(get("people", [("tenant", "globex"), ("after", "user19")]), signed("owner"))
    assert main_text(more).endswith("People of globex (continued) Username Name Email State user20 - - active")


def test_a_tenant_outside_the_roles_is_refused_before_it_is_read(acme: None) -> None:
    with pytest.raises(ApiError) as refused:
        get_people(get("people", [("tenant", "globex")]), signed("support", "acme"))
    assert (refused.value.code, refused.value.detail) == (
        "operator_forbidden", "Your roles (support (acme)) do not allow this in tenant globex.")
    with pytest.raises(ApiError) as admin:
        get_people(get("people"), signed("admin"))
    assert (admin.value.code, admin.value.detail) == ("operator_forbidden", "Your roles (admin) do not allow this.")
