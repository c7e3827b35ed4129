"""stores.base.TableStore: the injected client or the process's, the table from settings, faults named after the store."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from authgate.stores.base import TableStore
from authgate.stores.exceptions import StorageUnavailable, StoreError


class Notes(TableStore):
    table_setting = "clients"


class NamedNotes(TableStore):
    table_setting = "clients"
    name = "notes"


class Refused(StoreError):
    pass


def client_error(code: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": "m"}}, "PutItem")  # type: ignore[arg-type]


def test_the_table_comes_from_settings_unless_injected(monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_CLIENTS_TABLE", "clients-prod")
    caches.reset()
    assert Notes().table == "clients-prod"
    assert Notes(table="other").table == "other"


def test_the_default_table_name_without_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    monkeypatch.delenv("AUTHGATE_CLIENTS_TABLE", raising=False)
    caches.reset()
    assert Notes().table == "ClientsTable"


def test_an_injected_client_is_used_as_given() -> None:
    injected: Any = object()
    assert Notes(dynamodb=injected).db is injected


def test_without_injection_the_process_client_is_made_on_first_use_and_kept(aws: None) -> None:
    from authgate.aws import dynamodb

    store = Notes()
    assert store._db is None  # nothing is built at construction: no import-time or init-time AWS
    client = store.db
    assert client is dynamodb() and store.db is client
    # It is a real client on the store's table.
    client.put_item(TableName=store.table, Item={"client_id": {"S": "c1"}})
    assert boto3.client("dynamodb").get_item(
        TableName=store.table, Key={"client_id": {"S": "c1"}})["Item"] == {"client_id": {"S": "c1"}}


@pytest.mark.parametrize(("store", "operation"), [(Notes(table="t"), "clients.get"),
                                                  (NamedNotes(table="t"), "notes.get")])
def test_an_outage_is_storage_unavailable_named_after_the_store(store: TableStore, operation: str) -> None:
    with pytest.raises(StorageUnavailable) as info, store.faults("get"):
        raise client_error("ThrottlingException")
    assert (info.value.operation, info.value.reason) == (operation, "ThrottlingException")


def test_a_failed_condition_is_the_refusal_given() -> None:
    store = Notes(table="t")
    with pytest.raises(Refused), store.faults("put", refused=Refused):
        raise client_error("ConditionalCheckFailedException")
    with pytest.raises(ClientError) as info, store.faults("put"):
        raise client_error("ConditionalCheckFailedException")
    assert info.value.response["Error"]["Code"] == "ConditionalCheckFailedException"


def test_a_real_conditional_write_refused_through_faults(aws: None) -> None:
    store = Notes()

    def create() -> None:
        with store.faults("create", refused=Refused):
            store.db.put_item(TableName=store.table, Item={"client_id": {"S": "c1"}},
                              ConditionExpression="attribute_not_exists(client_id)")

    create()
    with pytest.raises(Refused):
        create()


def test_success_passes_through() -> None:
    with Notes(table="t").faults("get"):
        value = 1
    assert value == 1

