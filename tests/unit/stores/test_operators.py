"""stores.operators against moto: an operator's roles on their user item, changed only as they were read."""

from __future__ import annotations

import boto3
import pytest

from authgate.stores.exceptions import ConcurrentUpdate


def _olivia() -> None:
    from authgate.stores.users import UserStore

    UserStore().put_hash("operators", "olivia", "hash", overwrite=False, user_id="usr_olivia")


def test_roles_are_one_map_of_the_user_item_and_read_with_the_person(aws: None) -> None:
    from authgate.stores.operators import OperatorStore

    _olivia()
    store = OperatorStore()
    operator = store.get("operators", "olivia")
    assert operator is not None and (operator.user.user_id, operator.roles) == ("usr_olivia", ())
    changed = store.set_roles(operator, (("owner", ()), ("support", ("acme", "demo"))))
    assert store.get("operators", "olivia") == changed
    item = boto3.client("dynamodb").get_item(TableName="UsersTable",
                                             Key={"tenant_id": {"S": "operators"}, "username": {"S": "olivia"}})["Item"]
    assert item["operator_roles"] == {"M": {"owner": {"L": []}, "support": {"L": [{"S": "acme"}, {"S": "demo"}]}}}
    assert [o.username for o in store.of_tenant("operators")] == ["olivia"]
    assert store.set_roles(changed, ()).roles == ()
    assert "operator_roles" not in boto3.client("dynamodb").get_item(
        TableName="UsersTable", Key={"tenant_id": {"S": "operators"}, "username": {"S": "olivia"}})["Item"]


def test_a_change_on_roles_read_before_another_change_is_refused(aws: None) -> None:
    """Two owners at once: the second, working from what it read before the first wrote, changes nothing."""
    from authgate.stores.operators import OperatorStore

    _olivia()
    store = OperatorStore()
    read = store.get("operators", "olivia")
    assert read is not None
    store.set_roles(read, (("owner", ()),))
    with pytest.raises(ConcurrentUpdate):
        store.set_roles(read, (("auditor", ()),))
    assert store.get("operators", "olivia").roles == (("owner", ()),)  # type: ignore[union-attr]
    current = store.get("operators", "olivia")
    assert current is not None
    with pytest.raises(ConcurrentUpdate):  # the same username, another person
        store.set_roles(current._replace(user=current.user._replace(user_id="usr_someone_else")), ())


def test_an_absent_person_is_none(aws: None) -> None:
    from authgate.stores.operators import OperatorStore

    assert OperatorStore().get("operators", "nobody") is None
