"""tests/aws_state.py: each test's moto starts with the tables and queues DynamoDB's CreateTable and SQS's
CreateQueue make, and a seeded state restored in moto's backends reads as the local stack's own restore makes it."""

from __future__ import annotations

from typing import Any

from tests import aws_state

# What differs between two creations of the same table or queue: when, and its generated id.
VOLATILE = ("CreationDateTime", "TableId", "CreatedTimestamp", "LastModifiedTimestamp")


def described() -> dict[str, Any]:
    dynamodb = aws_state.client("dynamodb")
    sqs = aws_state.client("sqs")
    out = {}
    for name in dynamodb.list_tables()["TableNames"]:
        table = dynamodb.describe_table(TableName=name)["Table"]
        out[name] = {k: v for k, v in table.items() if k not in VOLATILE}
    for url in sqs.list_queues()["QueueUrls"]:
        attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        out[url] = {k: v for k, v in attributes.items() if k not in VOLATILE}
    return out


def test_the_tables_and_queues_made_in_the_backends_are_those_create_table_and_create_queue_make() -> None:
    from moto import mock_aws

    with mock_aws():
        aws_state.create_tables()
        quick = described()
    with mock_aws():
        aws_state.create_tables_by_request()
        requested = described()
    assert len(quick) == 19 + 4 and quick == requested


def held() -> dict[str, Any]:
    """Everything moto's DynamoDB and Secrets Manager hold, as a client reads it and as the backends keep it
    (but a secret's generated version id and dates), and the signing keys the runtime has loaded."""
    from moto.dynamodb.models import dynamodb_backends
    from moto.secretsmanager.models import secretsmanager_backends

    from authgate.tokens.local_backend import _loaded
    from authgate_cli.local import template
    from authgate_cli.local.snapshot import capture

    tables = dynamodb_backends[template.LOCAL_ACCOUNT][aws_state.REGION].tables
    secrets: dict[str, Any] = dict(secretsmanager_backends[template.LOCAL_ACCOUNT][aws_state.REGION].secrets.items())
    read = capture(aws_state.client("dynamodb"), aws_state.client("secretsmanager"), session_secret="")
    del read["saved_at"]
    return {
        "read": read,
        "items": {name: sorted(repr(item.to_json()) for item in table.all_items()) for name, table in tables.items()},
        "secrets": {name: (secret.secret_string, secret.secret_binary, secret.description, secret.tags,
                           secret.kms_key_id, next(iter(secret.versions.values()))["version_stages"])
                    for name, secret in secrets.items()},
        "loaded": sorted(_loaded()),
    }


def emptied() -> None:
    """This test's moto as the `aws` fixture makes it: nothing in it but the template's tables and queues."""
    from moto.dynamodb.models import dynamodb_backends
    from moto.secretsmanager.models import secretsmanager_backends
    from moto.sqs.models import sqs_backends

    from authgate import caches
    from authgate_cli.local import template

    for backends in (dynamodb_backends, secretsmanager_backends, sqs_backends):
        backends[template.LOCAL_ACCOUNT][aws_state.REGION].reset()
    caches.reset()
    aws_state.create_tables()


def test_a_seeded_state_restored_in_the_backends_is_what_the_snapshots_own_restore_makes(demo: Any) -> None:
    from authgate.stores.signing_keys import KeyStore

    # A binary value, which the snapshot keeps in base64, beside the demo's.
    dynamodb = aws_state.client("dynamodb")
    tenant = dynamodb.scan(TableName="TenantsTable", Limit=1)["Items"][0]
    dynamodb.put_item(TableName="TenantsTable", Item={
        **tenant, "tenant_id": {"S": "binary"}, "blob": {"B": b"\x00\xff"}, "blobs": {"BS": [b"\x01", b"\x02"]}})
    seeded = held()
    kept = aws_state.Capture.of(seeded["read"])
    records = KeyStore().all()
    states = []
    for restore in (aws_state.restore, aws_state.restore_by_request):
        emptied()
        assert not any(held()["items"].values()) and not held()["loaded"]
        restore(kept, records)
        states.append(held())
    quick, requested = states
    assert quick == requested
    # The demo (its tenants, clients, users, IdP, invoices and two signing keys: their records and secrets) and the
    # tenant with binary values.
    assert {name: len(items) for name, items in quick["items"].items() if items} == {
        "TenantsTable": 3 + 1, "ClientsTable": 13, "UsersTable": 3, "IdentityProvidersTable": 1, "KeysTable": 3,
        "InvoicesTable": 2}
    assert len(quick["secrets"]) == 2 and quick["loaded"] == sorted(record.kid for record in records)
    assert quick["read"] == seeded["read"]


def test_what_botocore_works_out_of_each_handler_once_is_what_it_works_out_each_time() -> None:
    import inspect
    from functools import partial

    import botocore.handlers
    import botocore.hooks
    import botocore.session

    botocore.session.Session().create_client("dynamodb", region_name=aws_state.REGION)
    # An aliaser of its own (aliases given) works everything out anew.
    own = botocore.hooks.EventAliaser(botocore.hooks.HierarchicalEmitter(), dict(botocore.hooks.EVENT_ALIASES))
    shared = botocore.hooks.EventAliaser(botocore.hooks.HierarchicalEmitter())._alias_name_cache
    assert len(shared) > 100 and own._alias_name_cache is not shared
    assert {name: own._alias_event_name(name) for name in shared} == shared
    assert shared["before-call.apigateway"] == "before-call.api-gateway"

    def keywords(**kwargs: Any) -> None:
        pass

    def positional(a: Any) -> None:
        pass

    def said(a: Any) -> None:
        pass

    said.__dict__["__signature__"] = inspect.signature(keywords)
    handlers = [entry[1] for entry in botocore.handlers.BUILTIN_HANDLERS]
    handlers += [keywords, positional, said, partial(positional), said, keywords, aws_state.share_botocore_models]
    assert {bool(botocore.hooks.accepts_kwargs(h)) for h in handlers} == {True, False}
    for handler in handlers:
        assert bool(botocore.hooks.accepts_kwargs(handler)) == bool(inspect.getfullargspec(handler)[2]), handler


def test_each_mock_aws_registers_the_routes_moto_builds() -> None:
    from moto import mock_aws
    from moto.core import custom_responses_mock
    from moto.core import models as moto_models

    models: Any = moto_models

    def registered() -> list[tuple[Any, ...]]:
        with mock_aws():
            return [(r.method, r.url, r.callback, type(r)) for r in models.responses_mock.registered()]

    shared = models.CallbackResponse
    first, second = registered(), registered()
    models.CallbackResponse = custom_responses_mock.CallbackResponse
    try:
        built = registered()
    finally:
        models.CallbackResponse = shared
    assert getattr(shared, "shared", False) and len(built) > 1000
    assert first == second == built
    assert not models.responses_mock.registered()
