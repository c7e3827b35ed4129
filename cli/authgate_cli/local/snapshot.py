"""`authgate serve --data DIR`: the local stack's AWS state kept on disk, across restarts.

Kept, in DIR/snapshot.json (owner-only; it holds password hashes and signing keys):
- every item of every table of template.yaml: tenants, clients, users, signing-key records,
  refresh tokens, revocations, authorization codes, charges, invoices, idempotency records,
  the limiter's counters;
- every Secrets Manager secret: the private signing keys of the local signing backend;
- the session secret, so a sign-in form open across a restart still posts.
Not kept: KMS keys (moto cannot export key material; the local stack signs with the local
backend), the usage plans' token buckets and quota counts (API Gateway's, held in the emulator's
memory), the demo app's pending sign-ins.

The snapshot is written at most once a second after a DynamoDB write (moto's backend is wrapped
to notice writes, as authgate_cli.local.atomic wraps it for atomicity), and once more when the
server stops. A server killed outright loses at most its last second. A DIR holds one stack at a
time (a lock file); an empty DIR is bootstrapped (tables, keys, seed) and saved at once; a DIR
with a snapshot is restored and the seed is not loaded again.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FORMAT = 1
SNAPSHOT = "snapshot.json"
LOCK = "lock"
SAVE_EVERY_SECONDS = 1.0
_WRITES = ("put_item", "update_item", "delete_item", "batch_write_item", "transact_write_items",
           "execute_statement", "execute_transaction", "batch_execute_statement",
           "create_table", "delete_table", "update_table", "update_time_to_live")


class DataDirError(Exception):
    """The data directory cannot be used (busy, unreadable, of another format)."""


@dataclass
class _Changes:
    """A counter of DynamoDB writes, bumped by moto's (wrapped) backend in this process."""

    count: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def bump(self) -> None:
        with self.lock:
            self.count += 1


CHANGES = _Changes()
_WATCHING = False


def watch_writes() -> None:
    """Count every write moto's DynamoDB backend applies (idempotent)."""
    global _WATCHING
    if _WATCHING:
        return
    from moto.dynamodb.models import DynamoDBBackend

    for name in _WRITES:
        original = getattr(DynamoDBBackend, name, None)
        if original is None:
            continue

        @functools.wraps(original)
        def counted(self: Any, *args: Any, __original: Any = original, **kwargs: Any) -> Any:
            try:
                return __original(self, *args, **kwargs)
            finally:
                CHANGES.bump()

        setattr(DynamoDBBackend, name, counted)
    _WATCHING = True


@contextlib.contextmanager
def claim(directory: Path) -> Iterator[None]:
    """Hold DIR's lock for the life of the server: two stacks never write one snapshot."""
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(directory / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:  # no flock on this platform: one stack per DIR is then up to you
            pass
        except BlockingIOError:
            raise DataDirError(f"{directory} is in use by another authgate serve") from None
        yield
    finally:
        os.close(fd)


def read(directory: Path) -> dict[str, Any] | None:
    """The snapshot in DIR, or None for a DIR that has none yet."""
    path = directory / SNAPSHOT
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise DataDirError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise DataDirError(f"{path} is not an authgate snapshot of format {FORMAT}")
    return data


def restore(data: dict[str, Any], dynamodb: Any, secretsmanager: Any) -> int:
    """Tables of the template (created first), their items and the secrets; returns the item count."""
    from authgate_cli.local.bootstrap import create_tables

    create_tables(dynamodb)
    restored = 0
    for table, items in (data.get("tables") or {}).items():
        for start in range(0, len(items), 25):
            batch = [{"PutRequest": {"Item": _from_json(item)}} for item in items[start:start + 25]]
            pending: dict[str, Any] = {table: batch}
            while pending:
                pending = dynamodb.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
        restored += len(items)
    for secret in data.get("secrets") or []:
        value = ({"SecretBinary": base64.b64decode(secret["binary"])} if "binary" in secret
                 else {"SecretString": secret["string"]})
        secretsmanager.create_secret(Name=secret["name"], Tags=secret.get("tags") or [], **value)
    return restored


def capture(dynamodb: Any, secretsmanager: Any, session_secret: str) -> dict[str, Any]:
    """Everything the stack holds in AWS, as JSON-ready data."""
    tables: dict[str, list[Any]] = {}
    for table in dynamodb.list_tables().get("TableNames", []):
        items: list[Any] = []
        kwargs: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
        while True:
            page = dynamodb.scan(**kwargs)
            items += [_to_json(item) for item in page.get("Items", [])]
            if "LastEvaluatedKey" not in page:
                break
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        tables[table] = items
    secrets = []
    for listed in secretsmanager.get_paginator("list_secrets").paginate():
        for meta in listed.get("SecretList", []):
            value = secretsmanager.get_secret_value(SecretId=meta["ARN"])
            entry: dict[str, Any] = {"name": meta["Name"], "tags": meta.get("Tags") or []}
            if "SecretBinary" in value:
                entry["binary"] = base64.b64encode(value["SecretBinary"]).decode("ascii")
            else:
                entry["string"] = value["SecretString"]
            secrets.append(entry)
    return {"format": FORMAT, "saved_at": int(time.time()), "tables": tables, "secrets": secrets,
            "session_secret": session_secret}


def write(directory: Path, data: dict[str, Any]) -> None:
    """Replace DIR's snapshot atomically (a reader never sees half of one), owner-only."""
    tmp = directory / f".{SNAPSHOT}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh, separators=(",", ":"))
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(directory / SNAPSHOT)


class Saver:
    """Writes DIR's snapshot after changes (debounced) and on `close()`."""

    def __init__(self, directory: Path, dynamodb: Any, secretsmanager: Any, session_secret: str) -> None:
        self.directory = directory
        self._clients = (dynamodb, secretsmanager)
        self._session_secret = session_secret
        self._saved = -1
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="snapshot", daemon=True)

    def start(self) -> None:
        self.save()
        self._thread.start()

    def save(self) -> None:
        seen = CHANGES.count
        write(self.directory, capture(*self._clients, self._session_secret))
        self._saved = seen

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self.save()

    def _run(self) -> None:
        while not self._stop.wait(SAVE_EVERY_SECONDS):
            if CHANGES.count != self._saved:
                try:
                    self.save()
                except Exception as exc:  # noqa: BLE001 - keep serving; say why the data is not saved
                    print(f"authgate serve: could not save the data directory: {type(exc).__name__}: {exc}",
                          flush=True)


def _to_json(value: Any) -> Any:
    """DynamoDB's low-level item form, binary values base64 (as on the wire)."""
    if isinstance(value, bytes | bytearray):
        return {"__b64__": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, dict):
        return {k: _to_json(v) for k, v in value.items()}
    if isinstance(value, list | set | tuple):
        return [_to_json(v) for v in value]
    return value


def _from_json(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"__b64__"}:
            return base64.b64decode(value["__b64__"])
        return {k: _from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    return value
