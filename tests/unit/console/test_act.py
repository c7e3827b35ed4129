"""console.act: what an operator does to a person, confirmed first (GET) and taken by a form (POST), by authgate.people's
one implementation, its sentence shown and its audit event recorded, success or not; a role that may not is refused
before the person is read."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from authgate.console.act import get_act, post_act
from authgate.errors import ApiError
from tests.unit.console.page_support import get, main_text, post, signed, tenants

OWNER = signed("owner")
Events = Callable[[], list[dict[str, Any]]]


@pytest.fixture
def acme(aws: None) -> None:
    """Tenant acme: ann (an email address), and <b>eve</b>."""
    from authgate.stores.users import UserStore

    tenants("acme", "globex")
    UserStore().put_hash("acme", "ann", "not-a-hash", user_id="usr_ann", email="ann@acme.example")
    UserStore().put_hash("acme", "<b>eve</b>", "not-a-hash", user_id="usr_eve")


def _event(events: Events) -> dict[str, Any]:
    """The one event recorded, without what every event has (id, time, request id, origin)."""
    (event,) = events()
    return {k: v for k, v in event.items() if k not in ("id", "time", "request_id", "source_ip", "user_agent")}


def test_an_action_is_confirmed_first_and_names_the_person_escaped(acme: None) -> None:
    answer = get_act(get("act", [("tenant", "acme"), ("username", "<b>eve</b>"), ("action", "disable")]), OWNER)
    assert main_text(answer) == (
        "Disable: <b>eve</b> (acme)? <b>eve</b> can no longer sign in; their sessions and refresh tokens end now. "
        "Disable Cancel")
    body = str(answer.body)
    assert "<b>eve" not in body
    assert '<input type="hidden" name="username" value="&lt;b&gt;eve&lt;/b&gt;">' in body
    assert ('<a href="http://127.0.0.1:3000/console/person?tenant=acme&amp;username=%3Cb%3Eeve%3C%2Fb%3E">Cancel</a>'
            in body)


def test_an_action_on_a_client_names_it(acme: None) -> None:
    answer = get_act(get("act", [("tenant", "acme"), ("username", "ann"), ("action", "revoke-consent"),
                                 ("client", "demo-web")]), OWNER)
    assert main_text(answer) == (
        "Withdraw: ann (acme)? ann's consent for the client demo-web is withdrawn and every grant made under it "
        "revoked: the client's refresh tokens are refused, and it asks ann for consent again at its next "
        "authorization request. Withdraw Cancel")
    assert '<input type="hidden" name="client" value="demo-web">' in str(answer.body)


@pytest.mark.parametrize(("query", "code", "detail"), [
    ([("tenant", "acme"), ("username", "ann"), ("action", "<revive>")], "invalid_request",
     ("There is no action '<revive>': the actions are disable, enable, unlock, reset-mfa, revoke-sessions, "
     "send-reset-link, reset-password, delete, revoke-consent, unlink.")),
    ([("tenant", "acme"), ("action", "disable")], "invalid_request", "Name the person with tenant and username."),
    ([("tenant", "acme"), ("username", "a\tb"), ("action", "disable")], "invalid_request",
     "The username parameter is too long or holds control characters."),
    ([("tenant", "acme"), ("username", "x" * 257), ("action", "disable")], "invalid_request",
     "The username parameter is too long or holds control characters."),
    ([("tenant", "acme"), ("username", "ann"), ("action", "revoke-consent")], "invalid_request",
     "--client must not be empty"),
    ([("tenant", "acme"), ("username", "zed"), ("action", "enable")], "not_found",
     "There is no person 'zed' in tenant 'acme'."),
], ids=["action", "no-username", "control", "long", "no-client", "nobody"])
def test_a_confirmation_of_what_cannot_be_is_refused(acme: None, query: list[tuple[str, str]], code: str,
                                                     detail: str) -> None:
    with pytest.raises(ApiError) as refused:
        get_act(get("act", query), OWNER)
    assert (refused.value.code, refused.value.detail) == (code, detail)


def test_a_role_that_may_not_is_refused_and_recorded(acme: None, audit_events: Events) -> None:
    with pytest.raises(ApiError) as refused:
        get_act(get("act", [("tenant", "acme"), ("username", "zed"), ("action", "delete")]), signed("support", "acme"))
    assert (refused.value.code, refused.value.detail) == (
        "operator_forbidden", "Your roles (support (acme)) do not allow this in tenant acme.")  # not "no person zed"
    with pytest.raises(ApiError) as elsewhere:
        post_act(post("act", {"tenant": "globex", "username": "ann", "action": "disable"}), signed("support", "acme"))
    assert elsewhere.value.detail == "Your roles (support (acme)) do not allow this in tenant globex."
    assert [(e["action"], e["outcome"], e["reason"], e["target"], e["details"]) for e in audit_events()] == [
        ("console.refused", "failure", "role", {"type": "tenant", "id": "acme"},
         {"console_action": "people.delete", "roles": "support (acme)"}),
        ("console.refused", "failure", "role", {"type": "tenant", "id": "globex"},
         {"console_action": "people.disable", "roles": "support (acme)"})]


def test_an_action_says_what_the_command_says_and_is_recorded(acme: None, audit_events: Events) -> None:
    from authgate.stores.users import UserStore

    answer = post_act(post("act", {"tenant": "acme", "username": "ann", "action": "disable"}), signed("support", "acme"))
    assert main_text(answer) == (
        "Disable: ann (acme) Done: user ann disabled (its sessions and refresh tokens end now) in tenant acme. "
        "Back to ann")
    user = UserStore().get("acme", "ann")
    assert user is not None and user.disabled
    assert _event(audit_events) == {
        "action": "user.disabled", "tenant": "acme", "outcome": "success",
        "actor": {"type": "operator", "id": "olivia", "principal": "console:usr_olivia"},
        "target": {"type": "user", "id": "usr_ann"},
        "details": {"username": "ann", "via": "console", "console_action": "disable", "roles": "support (acme)"}}


def test_a_temporary_password_is_shown_once_and_never_recorded(acme: None, audit_events: Events) -> None:
    from authgate.stores.users import UserStore

    answer = post_act(post("act", {"tenant": "acme", "username": "ann", "action": "reset-password"}), OWNER)
    found = re.search(r'<code class="secret">([^<]+)</code>', str(answer.body))
    assert found is not None
    password = found.group(1)
    assert main_text(answer) == (
        f"Set a temporary password: ann (acme) Done: user ann given a temporary password (changed at the next "
        f"sign-in; its sessions and refresh tokens end now) in tenant acme. The temporary password "
        f"{password} Hand it on to ann: it is shown this once, and they choose their own at their next sign-in. "
        "Back to ann")
    user = UserStore().get("acme", "ann")
    assert user is not None and user.must_change_password
    event = _event(audit_events)
    assert (event["action"], event["outcome"], event["details"]["console_action"]) == (
        "password.reset", "success", "reset-password")
    assert password not in str(event)


def test_a_deletion_goes_back_to_the_tenants_people(acme: None) -> None:
    answer = post_act(post("act", {"tenant": "acme", "username": "ann", "action": "delete"}), OWNER)
    assert main_text(answer).endswith(" Back to the people of acme")
    assert '<a href="http://127.0.0.1:3000/console/people?tenant=acme">' in str(answer.body)


@pytest.mark.parametrize(("fields", "code", "detail", "user_id", "reason", "named"), [
    ({"username": "zed", "action": "enable"}, "not_found", "There is no person 'zed' in tenant 'acme'.",
     "unknown", "unknown_account", {}),
    ({"username": "<b>eve</b>", "action": "send-reset-link"}, "invalid_request",
     ("No link was sent: this stage sends no mail: set a temporary password instead (`authgate users "
     "reset-password`)."), "usr_eve", "no_mail", {}),
    ({"username": "ann", "action": "revoke-consent", "client": "nope"}, "not_found", "no client 'nope'",
     "usr_ann", "UnknownClient", {"client_id": "nope"}),
    ({"username": "ann", "action": "unlink", "idp": "https://idp.example"}, "not_found",
     "user 'ann' of tenant 'acme' has no identity linked at 'https://idp.example'", "usr_ann", "NotLinked",
     {"idp": "https://idp.example"}),
], ids=["nobody", "no-mail", "no-client", "not-linked"])
def test_a_refusal_is_the_commands_reason_and_recorded_as_a_failure(
        acme: None, audit_events: Events, fields: dict[str, str], code: str, detail: str, user_id: str,
        reason: str, named: dict[str, str]) -> None:
    with pytest.raises(ApiError) as refused:
        post_act(post("act", {"tenant": "acme", **fields}), OWNER)
    assert (refused.value.code, refused.value.detail) == (code, detail)
    event = _event(audit_events)
    assert (event["outcome"], event["reason"], event["target"], event["details"]) == (
        "failure", reason, {"type": "user", "id": user_id},
        {"username": fields["username"], "via": "console", "console_action": fields["action"], "roles": "owner",
         **named})


def test_a_forged_form_is_refused_before_anything_is_done(acme: None, audit_events: Events) -> None:
    from authgate.interaction.pages import STALE
    from authgate.stores.users import UserStore

    with pytest.raises(ApiError) as refused:
        post_act(post("act", {"tenant": "acme", "username": "ann", "action": "disable"}, csrf="forged"), OWNER)
    assert (refused.value.code, refused.value.detail) == ("invalid_request", STALE)
    user = UserStore().get("acme", "ann")
    assert user is not None and not user.disabled
    assert audit_events() == []
