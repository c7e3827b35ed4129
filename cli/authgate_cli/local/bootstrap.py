"""Brings a local stack to life: tables and queues from template.yaml, signing keys and the console's client, then
the seed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from authgate_cli.local import template


def create_tables(client: Any) -> list[str]:
    """Create every table of the template that does not exist yet (TTL enabled where declared)."""
    existing = set(client.list_tables().get("TableNames", []))
    created = []
    for name, definition in template.table_definitions().items():
        if name in existing:
            continue
        client.create_table(**definition["create"])
        client.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
        if definition["ttl"]:
            client.update_time_to_live(TableName=name, TimeToLiveSpecification={
                "Enabled": True, "AttributeName": definition["ttl"]})
        created.append(name)
    return created


def bootstrap(seed: Path | None = None, demo_app: str | None = None) -> dict[str, Any]:
    """Tables, then keys (authgate.tokens.rotation), then the seed (authgate_cli.local.seed); returns the seed summary.

    Runs against whatever the environment points the AWS clients at; call after it is set.
    """
    from authgate import aws
    from authgate_cli.local.seed import DEMO_APP_ORIGIN, DEMO_SEED, load_seed

    create_tables(aws.dynamodb())
    template.create_queues(aws.sqs())
    ensure_deployed()
    return load_seed(seed or DEMO_SEED, demo_app=demo_app or DEMO_APP_ORIGIN) or {}


def ensure_deployed() -> None:
    """What a deploy's custom resources ensure on a stage (template.yaml): the signing keys (SigningKeysBootstrap)
    and the console's client record for this stack's issuer (ConsoleClientBootstrap)."""
    from authgate.console.client import ensure
    from authgate.settings import get_settings
    from authgate.tokens.rotation import ensure_keys

    ensure_keys()
    ensure(get_settings().issuer)
