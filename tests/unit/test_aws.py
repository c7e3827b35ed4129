"""authgate.aws: clients on one botocore session, its data loader and the one-time gc.freeze.

The loader and the freeze lean on botocore's internals (docs/decisions.md, "Measured
shortcuts"): these tests fail when a botocore upgrade changes what they rely on, so the shortcut
is mended or dropped rather than silently doing nothing.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator

import botocore.loaders
import botocore.session
import pytest

from authgate import aws, caches


@pytest.fixture
def listdir_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every directory listing made while the test runs (botocore lists its data with os.listdir)."""
    calls: list[str] = []
    real = os.listdir

    def counting(path: str = ".") -> list[str]:
        calls.append(str(path))
        return real(path)

    monkeypatch.setattr(os, "listdir", counting)
    yield calls


def test_the_session_knows_only_the_services_authgate_builds() -> None:
    caches.reset()
    assert aws._session().get_available_services() == ["dynamodb", "secretsmanager", "kms", "sesv2", "sqs", "s3", "events",
                                                      "lambda"]
    # The loader is still botocore's: everything but the service list comes from its data.
    assert isinstance(aws._session().get_component("data_loader"), botocore.loaders.Loader)


def test_building_a_client_does_not_list_every_bundled_service(listdir_calls: list[str]) -> None:
    caches.reset()
    aws.dynamodb()
    ours = len(listdir_calls)
    listdir_calls.clear()
    botocore.session.get_session().create_client("dynamodb", region_name="us-east-1")
    plain = len(listdir_calls)
    # botocore as shipped lists ~400 model directories for one client; with the loader a handful.
    # If botocore stops asking the loader (the shortcut is dead) or asks it elsewhere (it no
    # longer works), one side of this fails.
    assert ours <= 10, f"authgate's session listed {ours} directories"
    assert plain >= 100, f"plain botocore listed only {plain} directories: is the loader still needed?"


def test_every_client_authgate_builds_is_one_the_loader_knows() -> None:
    caches.reset()
    assert {c.meta.service_model.service_name for c in (aws.dynamodb(), aws.secretsmanager(), aws.kms(),
                                                             aws.sesv2(), aws.sqs(), aws.s3(), aws.events(),
                                                             aws.lambda_())} == set(
        aws._SERVICES)


def test_the_first_clients_freeze_what_was_loaded_and_later_ones_do_not() -> None:
    caches.reset()
    aws.dynamodb()
    assert gc.get_freeze_count() > 0
    frozen = len(aws._FROZEN)
    assert frozen <= len(aws._SERVICES)
    for _ in range(3):
        caches.reset()
        aws.dynamodb()
    # Bounded: a process that rebuilds clients (tests, the emulator) must not freeze its garbage for good.
    assert len(aws._FROZEN) <= len(aws._SERVICES)


def _provider_param_reads(monkeypatch: pytest.MonkeyPatch, client: object) -> list[str]:
    """Every evaluation of the client's endpoint ruleset parameters (botocore's, counted)."""
    resolver = client._ruleset_resolver  # type: ignore[attr-defined]
    real = resolver._get_provider_params
    reads: list[str] = []

    def counting(operation_model, call_args, request_context):  # type: ignore[no-untyped-def]
        reads.append(operation_model.name)
        return real(operation_model, call_args, request_context)

    monkeypatch.setattr(resolver, "_get_provider_params", counting)
    return reads


def test_a_dynamodb_operation_resolves_its_endpoint_once_per_client(monkeypatch: pytest.MonkeyPatch) -> None:
    from botocore.stub import Stubber

    caches.reset()
    client = aws.dynamodb()
    reads = _provider_param_reads(monkeypatch, client)
    with Stubber(client) as stub:
        for _ in range(3):
            stub.add_response("get_item", {})
            stub.add_response("batch_get_item", {"Responses": {}})
        for table in ("clients", "charges", "clients"):
            client.get_item(TableName=table, Key={"id": {"S": "x"}})
            client.batch_get_item(RequestItems={table: {"Keys": [{"id": {"S": "x"}}]}})
    # botocore as shipped evaluates the ruleset on every call (6 reads); once per operation here.
    assert reads == ["GetItem", "BatchGetItem"]


def test_the_remembered_endpoint_is_the_one_botocore_resolves_for_any_table() -> None:
    from botocore.config import Config

    caches.reset()
    ours = aws.dynamodb()
    plain = botocore.session.get_session().create_client(
        "dynamodb", region_name=ours.meta.region_name, endpoint_url=ours.meta.endpoint_url,
        config=Config(account_id_endpoint_mode="disabled"))
    arn = f"arn:aws:dynamodb:{ours.meta.region_name}:111122223333:table/charges"
    for name, args in (("GetItem", {"TableName": "charges", "Key": {}}), ("GetItem", {"TableName": arn, "Key": {}}),
                       ("BatchGetItem", {"RequestItems": {arn: {"Keys": []}}}),
                       ("TransactWriteItems", {"TransactItems": [{"Put": {"TableName": arn, "Item": {}}}]})):
        model = ours.meta.service_model.operation_model(name)
        expected = plain._ruleset_resolver.construct_endpoint(model, args, {})
        assert ours._ruleset_resolver.construct_endpoint(model, args, {}) == expected
        # Account-based endpoints are off: a table's ARN never picks another host than its name.
        assert expected.url == plain._ruleset_resolver.construct_endpoint(
            model, {"TableName": "charges", "RequestItems": {"charges": {}}, "TransactItems": []}, {}).url


def test_a_botocore_without_the_private_resolver_names_keeps_its_own_resolution() -> None:
    from types import SimpleNamespace

    # A botocore of the Lambda runtime that renamed what _remember_endpoints reads: nothing is replaced, no error.
    config = SimpleNamespace(account_id_endpoint_mode="disabled")
    aws._remember_endpoints(SimpleNamespace(meta=SimpleNamespace(config=config)))
    renamed = SimpleNamespace(construct_endpoint=len, param_definitions={})
    aws._remember_endpoints(SimpleNamespace(_ruleset_resolver=renamed, meta=SimpleNamespace(config=config)))
    assert renamed.construct_endpoint is len
    moved = SimpleNamespace(_param_definitions={})
    assert aws._from_client_alone(moved, SimpleNamespace(name="GetItem")) is False
