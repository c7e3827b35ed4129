"""people.operator_roles: a console role granted or revoked, one implementation for `authgate operators` and the
console; its checks in order, before anything is written, and the last owner kept when the caller asks."""

from __future__ import annotations

from typing import Any

import pytest


def seed(*operators: tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], tenants: tuple[str, ...] = ("acme",)) -> None:
    from authgate.stores.operators import OperatorStore
    from authgate.stores.tenants import TenantStore
    from authgate.stores.users import UserStore
    from authgate.tenants.model import Tenant

    for tenant in ("operators", *tenants):
        TenantStore().put(Tenant(tenant))
    for username, roles in operators:
        UserStore().put_hash("operators", username, "hash", overwrite=False, user_id=f"usr_{username}")
        operator = OperatorStore().get("operators", username)
        assert operator is not None
        OperatorStore().set_roles(operator, roles)


def items() -> list[dict[str, Any]]:
    import boto3

    return list(boto3.client("dynamodb").scan(TableName="UsersTable")["Items"])


def test_a_grant_and_a_revocation_say_what_the_operator_holds(aws: None) -> None:
    from authgate.people.operator_roles import change

    seed(("sam", ()))
    granted = change("grant", "sam", "support", ("acme",))
    assert (granted.said, granted.operator.roles) == ("operator sam holds support (acme)", (("support", ("acme",)),))
    assert change("revoke", "sam", "support").said == "operator sam holds none"


@pytest.mark.parametrize(("args", "error", "message"), [
    (("promote", "sam", "admin"), "RoleRefused", "no change 'promote': the changes are grant, revoke"),
    (("grant", "sam", "support"), "RoleRefused", "role support is held for tenants: name at least one with --tenant"),
    (("grant", "sam", "support", ("globex",)), "UnknownTenant", "globex"),
    (("grant", "nobody", "admin"), "UnknownOperator", "nobody"),
    (("revoke", "sam", "admin"), "RoleNotHeld", "holds no role admin"),
])
def test_what_does_not_hold_is_refused_in_order_and_nothing_is_written(aws: None, args: tuple[Any, ...], error: str,
                                                                       message: str) -> None:
    from authgate.people import operator_roles

    seed(("sam", (("auditor", ()),)))
    before = items()
    with pytest.raises(Exception) as raised:
        operator_roles.change(*args)
    assert (type(raised.value).__name__, str(raised.value)) == (error, message)
    assert items() == before


def test_the_last_owner_who_may_sign_in_is_kept_when_asked(aws: None) -> None:
    from authgate.people.operator_roles import LastOwner, change
    from authgate.stores.users import UserStore

    seed(("olivia", (("owner", ()),)), ("owen", (("owner", ()),)))
    UserStore().set_disabled("operators", "owen", True)
    with pytest.raises(LastOwner, match="^is the last owner: grant owner to another operator first$"):
        change("revoke", "olivia", "owner", keep_an_owner=True)
    UserStore().set_disabled("operators", "owen", False)
    assert change("revoke", "olivia", "owner", keep_an_owner=True).said == "operator olivia holds none"
    assert change("revoke", "owen", "owner").said == "operator owen holds none"  # the command's way: not kept
