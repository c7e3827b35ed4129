"""moto's AWS as the fixtures of tests/conftest.py set it up: a fresh moto for every test, made quickly.

Every test still gets its own `mock_aws` (nothing one test writes reaches another) with the
tables of template.yaml. Three things are shared within a test process, because rebuilding them
was most of the suite's time and tells a test nothing new:

- botocore's JSON service models, parsed once (`share_botocore_models`), and what it works out of
  each event handler it registers (`share_botocore_handler_facts`): the runtime still builds its
  session and clients anew after every `caches.reset()`, as a cold container does;
- one botocore client per service for the set-up itself, and the routes each `mock_aws` registers
  for the `requests` library (`share_moto_routes`);
- a seeded state (the demo seed, signing keys: an RSA key generation each), made for real by the
  first test that asks for it, captured with the local stack's own snapshot code
  (authgate_cli.local.snapshot, what `authgate serve --data DIR` keeps) and restored into each
  later test's fresh moto as that snapshot's restore would write it (`restore`), with the signing
  keys loaded as the seeding process held them. A
  capture is kept per seed, per set of AUTHGATE_* settings and per clock: under a stopped clock
  (the `clock` fixture) for that instant; under the wall clock for at most WALL_CAPTURE_SECONDS,
  so its timestamps are no older than a slow test's own. A seed that did not start from empty
  tables, or that made KMS keys (which moto cannot export), is never captured: it runs each time.

Each test's tables and queues, and a restored state's items and secrets, are handed to moto's
backends directly (`create_tables`, `restore`), with the arguments their request handlers would
pass: the requests through botocore and moto's parser and serializer were most of a test's set-up.
tests/unit/test_aws_state.py keeps both equal to what the requests make.
"""

from __future__ import annotations

import base64
import json
import os
import time
from collections.abc import Callable
from typing import Any

REGION = "us-east-1"
WALL_CAPTURE_SECONDS = 60.0

_clients: dict[str, Any] = {}
# (seed name, AUTHGATE_* settings, clock) -> (monotonic time captured, its capture, signing-key records)
_captures: dict[tuple[Any, ...], tuple[float, Capture, list[Any]]] = {}


def share_botocore_models() -> None:
    """Parse each of botocore's JSON model files once per process (idempotent).

    Each test starts the runtime cold (`caches.reset()`), so the runtime makes a new botocore
    session, and a new session parses the service models again (object_pairs_hook=OrderedDict):
    that was half of the unit tests' time. botocore itself hands one parsed model to every client
    of a session (its loader's instance cache); this hands it to every session of the process.
    Sessions, loaders and clients are still built, and every call still goes through them.
    """
    import botocore.loaders

    original = botocore.loaders.JSONFileLoader.load_file
    if getattr(original, "shared", False):
        return
    parsed: dict[str, Any] = {}

    def load_file(self: Any, file_path: str) -> Any:
        if f"{os.sep}s3{os.sep}" in file_path:
            # botocore edits S3's model in place for each client (its handler that takes the bucket
            # out of the request paths), and moto reads the same model to route: never shared.
            return original(self, file_path)
        if file_path not in parsed:
            parsed[file_path] = original(self, file_path)
        return parsed[file_path]

    load_file.shared = True  # type: ignore[attr-defined]
    botocore.loaders.JSONFileLoader.load_file = load_file
    share_botocore_handler_facts()


def share_botocore_handler_facts() -> None:
    """Work out once per process what a new botocore session works out again for each of its few hundred
    event handlers as it registers them (idempotent).

    Two pure functions of their argument, whose answers botocore keeps per session: an event name's
    aliased name (hooks.EventAliaser, under botocore's own EVENT_ALIASES: a session with aliases of its
    own keeps its own answers), and whether a handler function takes **kwargs (hooks.accepts_kwargs,
    which reads its signature). They were a third of each new session's and client's CPU. Every handler
    is still registered, checked and called as before.
    """
    import types

    import botocore.hooks

    if getattr(botocore.hooks.accepts_kwargs, "shared", False):
        return
    aliased: dict[str, str] = {}
    original_init = botocore.hooks.EventAliaser.__init__

    def init(self: Any, event_emitter: Any, event_aliases: Any = None) -> None:
        original_init(self, event_emitter, event_aliases)
        if event_aliases is None:
            self._alias_name_cache = aliased

    botocore.hooks.EventAliaser.__init__ = init

    original_accepts = botocore.hooks.accepts_kwargs
    accepts: dict[Any, bool] = {}

    def accepts_kwargs(func: Any) -> Any:
        # A function's (or its method's) signature is its code's, unless it says otherwise (__signature__).
        function = func.__func__ if isinstance(func, types.MethodType) else func
        if type(function) is not types.FunctionType or "__signature__" in function.__dict__:
            return original_accepts(func)
        if function.__code__ not in accepts:
            accepts[function.__code__] = original_accepts(func)
        return accepts[function.__code__]

    accepts_kwargs.shared = True  # type: ignore[attr-defined]
    botocore.hooks.accepts_kwargs = accepts_kwargs


def share_moto_routes() -> None:
    """Build the routes each `mock_aws` registers with the `responses` library once per process (idempotent).

    Every start of a mock_aws registers, for each HTTP method, one route per URL pattern of every moto
    service (1295 of them) so that `requests` calls reach moto too; building them was most of the `aws`
    fixture's time. The same route (method, pattern, callback) is now built once and registered again at
    each start, into the registry moto empties at each stop, as before.
    """
    from moto.core import models as moto_models

    models: Any = moto_models
    if getattr(models.CallbackResponse, "shared", False):
        return
    build = models.CallbackResponse
    built: dict[tuple[Any, ...], Any] = {}

    def route(method: str, url: Any, callback: Any) -> Any:
        key = (method, url, callback)
        if key not in built:
            built[key] = build(method=method, url=url, callback=callback)
        return built[key]

    route.shared = True  # type: ignore[attr-defined]
    models.CallbackResponse = route


def client(service: str) -> Any:
    """This process's botocore client of `service` for set-up (call it inside mock_aws)."""
    if service not in _clients:
        import boto3

        _clients[service] = boto3.client(service, region_name=REGION)
    return _clients[service]


def create_tables() -> None:
    """Every table and queue of template.yaml, as the template declares them.

    The tables are handed to moto's DynamoDB backend with the arguments its CreateTable handler gives it
    (moto.dynamodb.responses.DynamoHandler.create_table), the queues to its SQS backend as CreateQueue's
    handler does: the round trip of 17 CreateTable and 4 CreateQueue requests through botocore and moto's
    parser and serializer was most of every test's set-up (about 25 ms of CPU, then 5 more).
    tests/unit/test_aws_state.py keeps them equal to what CreateTable and CreateQueue make."""
    from moto.dynamodb.models import dynamodb_backends
    from moto.sqs.models import sqs_backends

    from authgate_cli.local import template

    backend = dynamodb_backends[template.LOCAL_ACCOUNT][REGION]
    for definition in template.table_definitions().values():
        create = definition["create"]
        backend.create_table(create["TableName"], schema=create["KeySchema"], throughput=None,
                             attr=create["AttributeDefinitions"],
                             global_indexes=create.get("GlobalSecondaryIndexes") or [],
                             indexes=create.get("LocalSecondaryIndexes") or [], streams=None,
                             billing_mode=create["BillingMode"], sse_specification=None, tags=[],
                             deletion_protection_enabled=False, warm_throughput=None)
    queues = sqs_backends[template.LOCAL_ACCOUNT][REGION]
    for name, attributes in template.queue_definitions(region=REGION).items():
        queues.create_queue(name, {}, **attributes)


def create_tables_by_request() -> None:
    """The tables and queues as `create_tables` makes them, through DynamoDB's CreateTable and SQS's CreateQueue
    (its test's reference)."""
    from authgate_cli.local import template

    for definition in template.table_definitions().values():
        client("dynamodb").create_table(**definition["create"])
    template.create_queues(client("sqs"), region=REGION)


def seeded(name: str, seed: Callable[[], None]) -> None:
    """Run `seed` into this test's fresh moto, or restore what it wrote when it ran in this process before."""
    key = (name, tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("AUTHGATE_"))), _clock())
    kept = _captures.get(key)
    if kept is not None and (key[-1] != ("wall",) or time.monotonic() - kept[0] < WALL_CAPTURE_SECONDS):
        restore(kept[1], kept[2])
        return
    empty = _is_empty(_capture())
    seed()
    if not empty:
        return
    from authgate.stores.signing_keys import KeyStore

    records = KeyStore().all()
    if all(record.backend == "local" for record in records):
        _captures[key] = (time.monotonic(), Capture.of(_capture()), records)


class Capture:
    """A snapshot (authgate_cli.local.snapshot's form) ready to restore many times: its items kept as one JSON
    text, so that each restore gets items of its own (a test's writes never reach the next test's)."""

    def __init__(self, tables: str, secrets: list[dict[str, Any]]) -> None:
        self.tables = tables
        self.secrets = secrets

    @classmethod
    def of(cls, snapshot: dict[str, Any]) -> Capture:
        # Only what snapshot.capture makes of the local backend's keys: their secrets are strings.
        assert all("string" in secret for secret in snapshot["secrets"])
        return cls(json.dumps(snapshot["tables"]), json.loads(json.dumps(snapshot["secrets"])))

    def items(self) -> dict[str, list[dict[str, Any]]]:
        """Every table's items as a DynamoDB client sends them (binary values as bytes)."""
        def binary(value: dict[str, Any]) -> Any:
            return base64.b64decode(value["__b64__"]) if value.keys() == {"__b64__"} else value

        items: dict[str, list[dict[str, Any]]] = json.loads(self.tables, object_hook=binary)
        return items


def restore(kept: Capture, records: list[Any]) -> None:
    """Into this test's fresh moto, what `snapshot.restore` writes of the capture, handed to moto's backends
    directly, as their handlers do for BatchWriteItem and CreateSecret (`restore_by_request` is the reference:
    its 6 requests through botocore and moto's parser and serializer were most of a restore); then the keys
    loaded as the seeding process holds them."""
    from moto.dynamodb.models import dynamodb_backends
    from moto.secretsmanager.models import secretsmanager_backends

    from authgate_cli.local import template

    dynamodb = dynamodb_backends[template.LOCAL_ACCOUNT][REGION]
    for table, items in kept.items().items():
        for item in items:
            dynamodb.put_item(table, item)
    secrets = secretsmanager_backends[template.LOCAL_ACCOUNT][REGION]
    for secret in kept.secrets:
        secrets.create_secret(name=secret["name"], secret_string=secret["string"], secret_binary=None,
                              description="", tags=[dict(tag) for tag in secret["tags"]], kms_key_id=None, client_request_token=None,
                              replica_regions=[], force_overwrite=False)
    _load_signers(records)


def restore_by_request(kept: Capture, records: list[Any]) -> None:
    """What `restore` makes, through authgate_cli.local.snapshot's restore and so DynamoDB's and Secrets
    Manager's requests (its test's reference)."""
    from authgate_cli.local.snapshot import restore as restore_snapshot

    restore_snapshot({"tables": json.loads(kept.tables), "secrets": kept.secrets}, client("dynamodb"),
                     client("secretsmanager"))
    _load_signers(records)


def _load_signers(records: list[Any]) -> None:
    """The seeding process made these keys and so holds them loaded: load them as it would."""
    from authgate.tokens.local_backend import LocalBackend

    backend = LocalBackend(client("secretsmanager"))
    for record in records:
        backend.load_signer(record)


def _clock() -> tuple[Any, ...]:
    """("stopped", t) under a clock that does not move by itself (authgate.clock.using), else ("wall",)."""
    from authgate import clock

    first = clock.now()
    time.sleep(0.001)
    return ("stopped", first) if clock.now() == first else ("wall",)


def _capture() -> dict[str, Any]:
    from authgate_cli.local.snapshot import capture

    return capture(client("dynamodb"), client("secretsmanager"), session_secret="")


def _is_empty(snapshot: dict[str, Any]) -> bool:
    return not snapshot["secrets"] and not any(snapshot["tables"].values())
