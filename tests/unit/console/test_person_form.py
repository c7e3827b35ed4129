"""console.person_form: an owner's New person and profile forms, what they show (escaped), and what a POST says:
the command's sentence or its reason for a refusal, with the command's audit event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from authgate.console.person_form import edit_link, get_edit, get_new, post_edit, post_new
from authgate.errors import ApiError
from tests.unit.console.page_support import get, main_text, post, signed, tenants

OWNER = signed("owner")


@pytest.fixture
def acme(aws: None) -> None:
    """Tenants acme and globex; ann in acme, her name and email hostile text."""
    from authgate.stores.users import UserStore

    tenants("acme", "globex")
    UserStore().put_hash("acme", "ann", "not-a-hash", user_id="usr_ann", name='Ann "<i>"', email="ann@acme.example",
                         email_verified=True)


def test_the_edit_link_names_the_person() -> None:
    assert edit_link(get("person"), "acme", "a&b") == "http://127.0.0.1:3000/console/person-edit?tenant=acme&username=a%26b"


def test_the_new_person_form_offers_the_tenants_the_owner_may_create_in(acme: None) -> None:
    answer = get_new(get("person-new", [("tenant", "globex")]), OWNER)
    assert main_text(answer) == (
        "New person Tenant acme globex Username Name Email Email verified No Yes "
        "Password (at least 8 characters; not the username) Create Cancel")
    body = str(answer.body)
    assert '<option value="globex" selected>globex</option>' in body
    assert '<input id="password" name="password" type="password" value="" autocomplete="new-password"' in body


def test_the_profile_form_holds_the_profile_escaped(acme: None) -> None:
    body = str(get_edit(get("person-edit", [("tenant", "acme"), ("username", "ann")]), OWNER).body)
    assert '<input id="name" name="name" type="text" value="Ann &quot;&lt;i&gt;&quot;" autocomplete="off"' in body
    assert '<option value="yes" selected>Yes</option>' in body and '<option value="no">No</option>' in body
    assert '<input type="hidden" name="username" value="ann">' in body
    with pytest.raises(ApiError) as missing:
        get_edit(get("person-edit", [("tenant", "acme"), ("username", "zed")]), OWNER)
    assert (missing.value.code, missing.value.detail) == ("not_found", "There is no person 'zed' in tenant 'acme'.")


@pytest.mark.parametrize("role", ["admin", "support", "auditor"])
def test_only_an_owner_creates_or_changes_a_person(acme: None, role: str) -> None:
    with pytest.raises(ApiError) as new:
        get_new(get("person-new"), signed(role, *(("acme",) if role == "support" else ())))
    with pytest.raises(ApiError) as edit:
        post_edit(post("person-edit", {"tenant": "acme", "username": "ann", "name": "x"}),
                  signed(role, *(("acme",) if role == "support" else ())))
    assert new.value.code == edit.value.code == "operator_forbidden"
    assert edit.value.detail.endswith("do not allow this in tenant acme.")


def test_a_profile_changed_says_what_the_command_says(acme: None,
                                                      audit_events: Callable[[], list[dict[str, Any]]]) -> None:
    from authgate.stores.users import UserStore

    answer = post_edit(post("person-edit", {"tenant": "acme", "username": "ann", "name": "Ann B", "email": "",
                                            "email_verified": "no"}), OWNER)
    assert main_text(answer) == "Edit: ann (acme) Done: user ann updated in tenant acme. Back to ann"
    user = UserStore().get("acme", "ann")
    assert user is not None and (user.name, user.email, user.email_verified) == ("Ann B", "", False)
    (event,) = audit_events()
    assert (event["action"], event["outcome"], event["target"], event["details"]) == (
        "user.changed", "success", {"type": "user", "id": "usr_ann"},
        {"username": "ann", "via": "console", "console_action": "update", "roles": "owner"})


def test_a_refusal_is_the_commands_reason_and_a_failed_event(acme: None,
                                                             audit_events: Callable[[], list[dict[str, Any]]]) -> None:
    with pytest.raises(ApiError) as short:
        post_new(post("person-new", {"tenant": "acme", "username": "cy", "password": "short"}), OWNER)
    assert (short.value.code, short.value.detail) == ("invalid_request", "the password must have at least 8 characters")
    (event,) = audit_events()
    assert (event["action"], event["outcome"], event["reason"]) == ("user.created", "failure", "invalid_input")
    with pytest.raises(ApiError) as nowhere:
        post_new(post("person-new", {"tenant": "nowhere", "username": "cy", "password": "long enough"}), OWNER)
    assert (nowhere.value.code, nowhere.value.detail) == ("not_found", "There is no tenant 'nowhere'.")
    with pytest.raises(ApiError) as unnamed:
        post_edit(post("person-edit", {"tenant": "acme", "username": ""}), OWNER)
    assert (unnamed.value.code, unnamed.value.detail) == (
        "invalid_request", "Name the person with tenant and username.")
    with pytest.raises(ApiError) as gone:
        post_edit(post("person-edit", {"tenant": "acme", "username": "zed", "name": "Z"}), OWNER)
    assert (gone.value.code, gone.value.detail) == ("not_found", "There is no person 'zed' in tenant 'acme'.")
