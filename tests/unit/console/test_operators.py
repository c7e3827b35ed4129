"""console.operators: the operators and their roles; a role granted or revoked, confirmed first, by the one
implementation `authgate operators` calls, with its checks, sentence and audit event; the last owner is kept."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from authgate.console.operators import get_operators, get_role_change, post_role_change
from authgate.errors import ApiError
from tests.functional.console_support import grant
from tests.unit.console.page_support import get, main_text, post, signed, tenants

OWNER = signed("owner")
Events = Callable[[], list[dict[str, Any]]]


@pytest.fixture
def team(aws: None) -> None:
    """Tenants acme, globex and the operators'; operators olivia (owner), <i>bob</i> (support of acme) and carol (no role)."""
    from authgate.stores.users import UserStore

    tenants("acme", "globex", "operators")
    grant("olivia", "owner")
    grant("<i>bob</i>", "support", "acme")
    UserStore().put_hash("operators", "carol", "not-a-hash", user_id="usr_carol", disabled=True)


@pytest.mark.usefixtures("team")
def test_the_list_names_each_operators_roles_and_offers_the_change_to_an_owner() -> None:
    answer = get_operators(get("operators"), OWNER)
    assert main_text(answer) == (
        "Operators The people of the operators tenant operators Username User id Roles State "
        "<i>bob</i> usr_<i>bob</i> support (acme) active carol usr_carol none disabled olivia usr_olivia owner active "
        "Grant or revoke a role Change grant revoke Operator <i>bob</i> carol olivia "
        "Role owner admin support auditor Tenants (role support only; several with Ctrl or Shift) acme globex operators Continue")
    body = str(answer.body)
    assert "<i>bob" not in body and '<option value="&lt;i&gt;bob&lt;/i&gt;">' in body
    assert '<form method="get" action="http://127.0.0.1:3000/console/operator-role">' in body


@pytest.mark.usefixtures("team")
def test_an_auditor_sees_the_list_only_and_an_admin_nothing() -> None:
    assert main_text(get_operators(get("operators"), signed("auditor"))).endswith("olivia usr_olivia owner active")
    with pytest.raises(ApiError) as refused:
        get_operators(get("operators"), signed("admin"))
    assert (refused.value.code, refused.value.detail) == ("operator_forbidden", "Your roles (admin) do not allow this.")


@pytest.mark.usefixtures("team")
def test_a_change_is_confirmed_with_what_the_operator_will_hold() -> None:
    answer = get_role_change(get("operator-role", [("change", "grant"), ("username", "<i>bob</i>"),
                                                   ("role", "support"), ("tenant", "globex"), ("tenant", "acme")]),
                             OWNER)
    assert main_text(answer) == (
        "Grant support (acme, globex): <i>bob</i>? <i>bob</i> holds support (acme) now, and will hold support (acme, "
        "globex). Grant Cancel")
    assert '<input type="hidden" name="tenants" value="acme globex">' in str(answer.body)


@pytest.mark.usefixtures("team")
@pytest.mark.parametrize(("query", "code", "detail"), [
    ([("change", "grant"), ("role", "owner")], "invalid_request", "Name the operator with username."),
    ([("change", "grant"), ("username", "a\nb"), ("role", "owner")], "invalid_request",
     "The username parameter is too long or holds control characters."),
    ([("change", "promote"), ("username", "carol"), ("role", "owner")], "invalid_request",
     "no change 'promote': the changes are grant, revoke."),
    ([("change", "grant"), ("username", "carol"), ("role", "support")], "invalid_request",
     "role support is held for tenants: name at least one with --tenant."),
    ([("change", "grant"), ("username", "carol"), ("role", "owner"), *[("tenant", f"t{n}") for n in range(51)]],
     "invalid_request", "The tenants are too many, too long or hold spaces or control characters."),
    ([("change", "grant"), ("username", "zed"), ("role", "owner")], "not_found",
     "There is no person 'zed' in tenant 'operators'."),
    ([("change", "grant"), ("username", "carol"), ("role", "support"), ("tenant", "nowhere")], "not_found",
     "There is no tenant 'nowhere'."),
    ([("change", "revoke"), ("username", "carol"), ("role", "admin")], "invalid_request",
     "operator 'carol' holds no role admin."),
], ids=["no-username", "control", "change", "no-tenant", "too-many", "nobody", "unknown-tenant", "not-held"])
def test_a_change_that_cannot_be_is_refused_before_it_is_asked(query: list[tuple[str, str]], code: str,
                                                               detail: str) -> None:
    with pytest.raises(ApiError) as refused:
        get_role_change(get("operator-role", query), OWNER)
    assert (refused.value.code, refused.value.detail) == (code, detail)


@pytest.mark.usefixtures("team")
def test_a_grant_is_made_said_and_recorded(audit_events: Events) -> None:
    from authgate.stores.operators import OperatorStore

    answer = post_role_change(post("operator-role", {"change": "grant", "username": "<i>bob</i>", "role": "support",
                                                     "tenants": "globex acme"}), OWNER)
    assert main_text(answer) == (
        "Grant support: <i>bob</i> Done: operator <i>bob</i> holds support (acme, globex). "
        "Back to the operators")
    bob = OperatorStore().get("operators", "<i>bob</i>")
    assert bob is not None and bob.roles == (("support", ("acme", "globex")),)
    (event,) = audit_events()
    assert (event["action"], event["tenant"], event["outcome"], event["target"], event["details"]) == (
        "operator.role_granted", "operators", "success", {"type": "user", "id": "usr_<i>bob</i>"},
        {"username": "<i>bob</i>", "via": "console", "console_action": "grant", "roles": "owner", "role": "support",
         "tenants": ["acme", "globex"]})


@pytest.mark.usefixtures("team")
def test_the_last_owner_is_kept_and_the_refusal_recorded(audit_events: Events) -> None:
    from authgate.stores.operators import OperatorStore

    with pytest.raises(ApiError) as refused:
        post_role_change(post("operator-role", {"change": "revoke", "username": "olivia", "role": "owner"}), OWNER)
    assert (refused.value.code, refused.value.detail) == (
        "invalid_request", "operator 'olivia' is the last owner: grant owner to another operator first.")
    olivia = OperatorStore().get("operators", "olivia")
    assert olivia is not None and olivia.roles == (("owner", ()),)
    (event,) = audit_events()
    assert (event["action"], event["outcome"], event["reason"], event["details"]["role"]) == (
        "operator.role_revoked", "failure", "last_owner", "owner")


@pytest.mark.usefixtures("team")
@pytest.mark.parametrize(("fields", "code", "detail", "user_id", "reason"), [
    ({"change": "grant", "username": "zed", "role": "owner"}, "not_found",
     "There is no person 'zed' in tenant 'operators'.", "unknown", "unknown_account"),
    ({"change": "grant", "username": "carol", "role": "support", "tenants": "nowhere"}, "not_found",
     "There is no tenant 'nowhere'.", "usr_carol", "unknown_tenant"),
    ({"change": "revoke", "username": "carol", "role": "auditor"}, "invalid_request",
     "operator 'carol' holds no role auditor.", "usr_carol", "role_not_held"),
], ids=["nobody", "unknown-tenant", "not-held"])
def test_a_refused_change_is_recorded_with_its_reason(audit_events: Events, fields: dict[str, str],
                                                      code: str, detail: str, user_id: str, reason: str) -> None:
    with pytest.raises(ApiError) as refused:
        post_role_change(post("operator-role", fields), OWNER)
    assert (refused.value.code, refused.value.detail) == (code, detail)
    (event,) = audit_events()
    assert (event["outcome"], event["reason"], event["target"]) == ("failure", reason, {"type": "user", "id": user_id})


@pytest.mark.usefixtures("team")
def test_only_an_owner_changes_roles(audit_events: Events) -> None:
    from authgate.stores.operators import OperatorStore

    with pytest.raises(ApiError) as refused:
        post_role_change(post("operator-role", {"change": "grant", "username": "carol", "role": "owner"}),
                         signed("auditor"))
    assert (refused.value.code, refused.value.detail) == (
        "operator_forbidden", "Your roles (auditor) do not allow this.")
    carol = OperatorStore().get("operators", "carol")
    assert carol is not None and carol.roles == ()
    assert [(e["action"], e["details"]) for e in audit_events()] == [
        ("console.refused", {"console_action": "operators.change", "roles": "auditor"})]
