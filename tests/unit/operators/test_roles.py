"""operators.roles: the one table of what each role may do, where a tenant's role holds, and how roles change."""

from __future__ import annotations

import pytest

from authgate.operators.errors import RoleNotHeld, RoleRefused
from authgate.operators.roles import ACTIONS, ROLES, Reach, described, granted, may, reach, revoked

OWNER = (("owner", ()),)
ADMIN = (("admin", ()),)
AUDITOR = (("auditor", ()),)
SUPPORT_ACME = (("support", ("acme",)),)


def test_the_table_says_who_may_take_each_action() -> None:
    """The rule of the issue, action by action: owner everything; admin the configuration; support people in its
    tenants, never a password; auditor every read and nothing else."""
    def roles_of(action: str) -> set[str]:
        return {role for role in ROLES if may(((role, ("acme",) if role == "support" else ()),), action, "acme")}

    for action in ACTIONS:
        assert "owner" in roles_of(action), action
        assert ("auditor" in roles_of(action)) == (action.endswith((".view", ".find")) or action == "console.home")
    assert {a for a in ACTIONS if "admin" in roles_of(a)} == {
        "console.home", *(f"{noun}.{verb}" for noun in ("tenants", "clients", "resources", "idps", "keys")
                          for verb in ("view", "change"))}
    assert {a for a in ACTIONS if "support" in roles_of(a)} == {
        "console.home", "people.find", "people.view", "people.disable", "people.enable", "people.unlock",
        "people.reset_mfa", "people.revoke_sessions", "people.send_reset_link"}
    assert roles_of("people.reset_password") == roles_of("operators.change") == {"owner"}
    # Withdrawing a consent revokes a client's grants: not among what the issue lists for support.
    for action in ("people.create", "people.update", "people.delete", "people.unlink", "people.revoke_consent"):
        assert roles_of(action) == {"owner"}, action


def test_a_tenant_role_holds_in_its_tenants_only_and_never_for_no_tenant() -> None:
    assert may(SUPPORT_ACME, "people.view", "acme")
    assert not may(SUPPORT_ACME, "people.view", "demo")
    assert not may(SUPPORT_ACME, "people.view")
    assert reach(SUPPORT_ACME, "people.find") == Reach(False, frozenset({"acme"}))
    assert reach(SUPPORT_ACME, "clients.view") == Reach(False) and not reach(SUPPORT_ACME, "clients.view").anywhere
    assert reach(OWNER + SUPPORT_ACME, "people.view") == Reach(True)
    assert may(AUDITOR, "people.view", "demo") and not may(AUDITOR, "people.disable", "demo")
    assert not may(ADMIN, "people.view", "demo") and may(ADMIN, "keys.change")


def test_no_role_and_an_unknown_action_allow_nothing() -> None:
    assert not may((), "console.home")
    assert not may(OWNER, "people.teleport", "demo")


def test_roles_are_granted_and_revoked_by_tenant() -> None:
    roles = granted((), "support", ["demo"])
    roles = granted(roles, "support", ["acme", "demo"])
    assert roles == (("support", ("acme", "demo")),)
    roles = granted(roles, "owner")
    assert roles == (("owner", ()), ("support", ("acme", "demo")))
    assert described(roles) == "owner, support (acme, demo)" and described(()) == "none"
    assert revoked(roles, "support", ["demo"]) == (("owner", ()), ("support", ("acme",)))
    assert revoked(roles, "support") == OWNER
    assert revoked(revoked(roles, "support", ["acme", "demo"]), "owner") == ()


@pytest.mark.parametrize(("change", "message"), [
    (lambda: granted((), "root"), "no role 'root': the roles are owner, admin, support, auditor"),
    (lambda: granted((), "support"), "role support is held for tenants: name at least one with --tenant"),
    (lambda: granted((), "admin", ["acme"]), "role admin holds everywhere: --tenant is for role support only"),
    (lambda: revoked(OWNER, "admin"), "holds no role admin"),
    (lambda: revoked(SUPPORT_ACME, "support", ["demo"]), "holds role support for no tenant 'demo'"),
])
def test_a_change_that_makes_no_sense_is_refused(change: object, message: str) -> None:
    with pytest.raises(RoleRefused) as refused:
        change()  # type: ignore[operator]
    assert str(refused.value) == message
    assert isinstance(refused.value, RoleNotHeld) == message.startswith("holds")
