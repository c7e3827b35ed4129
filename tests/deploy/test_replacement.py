"""A change that would replace a stateful resource (a table, the secret, a log group) fails before
it reaches CloudFormation, which would replace it silently and point the functions at an empty one."""

from __future__ import annotations

import copy

import pytest

from authgate_cli.local import template as reader
from scripts.replacement_check import RELEASED, create_only, main, replacements


@pytest.mark.slow
def test_the_template_replaces_nothing_the_last_release_holds() -> None:
    assert replacements(reader.load(RELEASED), reader.load()) == []
    assert main([]) == 0


def test_create_only_properties_come_from_the_resource_schemas() -> None:
    assert create_only("AWS::Logs::LogGroup") == ["/properties/LogGroupName"]
    assert create_only("AWS::SecretsManager::Secret") == ["/properties/Name"]
    table = create_only("AWS::DynamoDB::Table")
    assert {"/properties/TableName", "/properties/KeySchema"} <= set(table)


@pytest.mark.parametrize(("change", "expected"), [
    (lambda r: r["ChargesTable"]["Properties"].__setitem__(
        "KeySchema", [{"AttributeName": "id", "KeyType": "HASH"}]), "ChargesTable: KeySchema changed"),
    (lambda r: r["ClientsTable"]["Properties"].__setitem__("TableName", "clients"), "ClientsTable: TableName changed"),
    (lambda r: r["TokenLogGroup"]["Properties"].__setitem__("LogGroupName", "/authgate/token"),
     "TokenLogGroup: LogGroupName changed"),
    (lambda r: r["SessionSecret"]["Properties"].__setitem__("Name", "authgate/session"), "SessionSecret: Name changed"),
    (lambda r: r.__setitem__("ChargesTableV2", r.pop("ChargesTable")), "ChargesTable: removed"),
])
def test_a_change_that_would_replace_stateful_data_is_refused(change, expected: str) -> None:  # type: ignore[no-untyped-def]
    current = copy.deepcopy(reader.load(RELEASED))
    change(current["Resources"])
    found = replacements(reader.load(RELEASED), current)
    assert len(found) == 1 and found[0].startswith(expected), found


def test_a_change_in_place_is_not_a_replacement() -> None:
    current = copy.deepcopy(reader.load(RELEASED))
    current["Resources"]["ChargesTable"]["Properties"]["PointInTimeRecoverySpecification"] = {
        "PointInTimeRecoveryEnabled": False}
    current["Resources"]["TokenLogGroup"]["Properties"]["RetentionInDays"] = 30
    assert replacements(reader.load(RELEASED), current) == []
