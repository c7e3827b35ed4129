"""DynamoDB calls per charges operation, guard and limiter included (issue 6 and 15 targets).

Run: `python -m bench.charges_calls`. Uses the sample events in events/ on in-process moto with
the demo seed, exactly as `authgate invoke` does. Warm figures are what a warm Lambda pays
(client, tenant and key caches filled); cold adds the cache misses of a fresh container.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from bench.dynamodb_calls import counting

EVENTS = Path(__file__).resolve().parents[1] / "events"
TARGETS = {"POST /charges, first with Idempotency-Key": 3, "POST /charges, replay": 2,
           "GET /charges/{id}": 2, "GET /charges": 3}


def _event(name: str, **changes: Any) -> dict[str, Any]:
    from authgate_cli.local.invoke import prepare

    event, _ = prepare(json.loads((EVENTS / f"{name}.json").read_text("utf-8")))
    event.update(changes)
    return event


def _keyed(key: str) -> dict[str, Any]:
    event = _event("charges-create-idempotent")
    for headers in (event["headers"], event["multiValueHeaders"]):
        headers["Idempotency-Key"] = key if headers is event["headers"] else [key]
    return event


def measure() -> list[tuple[str, int, str]]:
    """(operation, calls, detail) rows; warm unless the name says cold."""
    from authgate import caches
    from authgate_cli.local.context import LambdaContext
    from authgate_cli.local.functions import load_handler

    handler = load_handler("charges")

    def call(event: dict[str, Any]) -> tuple[dict[str, Any], Any]:
        with counting() as calls:
            result = handler(event, LambdaContext("charges"))
        return result, calls

    rows: list[tuple[str, int, str]] = []
    caches.reset()  # a fresh container: no client, tenant or key cache
    _, cold = call(_keyed("bench-cold"))
    rows.append(("POST /charges, first with Idempotency-Key (cold)", cold.total, str(cold)))

    created, first = call(_keyed("bench-warm"))
    rows.append(("POST /charges, first with Idempotency-Key", first.total, str(first)))
    replayed, replay = call(_keyed("bench-warm"))
    assert replayed["statusCode"] == 201 and "Idempotent-Replayed" in replayed["multiValueHeaders"]
    rows.append(("POST /charges, replay", replay.total, str(replay)))
    _, plain = call(_event("charges-create"))
    rows.append(("POST /charges, no key", plain.total, str(plain)))
    _, paying = call(_event("charges-create-pays-invoice"))
    rows.append(("POST /charges, key + pays an invoice", paying.total, str(paying)))

    charge_id = json.loads(created["body"])["id"]
    get = _event("charges-get-not-found-404", path=f"/charges/{charge_id}", pathParameters={"id": charge_id})
    got, read = call(get)
    assert got["statusCode"] == 200, got
    rows.append(("GET /charges/{id}", read.total, str(read)))
    listed, page = call(_event("charges-list"))
    assert listed["statusCode"] == 200, listed
    rows.append(("GET /charges", page.total, str(page)))
    return rows


def main() -> int:
    from authgate_cli.local.invoke import local_aws

    with local_aws():
        rows = measure()
    width = max(len(name) for name, _, _ in rows)
    print("DynamoDB calls per request (guard + limiter + charges):")
    failed = False
    for name, total, detail in rows:
        target = TARGETS.get(name)
        verdict = "" if target is None else (f"  target <= {target}: " + ("ok" if total <= target else "OVER"))
        failed |= target is not None and total > target
        print(f"  {name:<{width}}  {detail}{verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
