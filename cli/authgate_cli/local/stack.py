"""The environment of a local stack and the state file that lets other processes find it.

`authgate serve` computes the environment its handlers see (issuer, stage, AWS endpoint, table
names, a per-process session secret, fake credentials), applies it to itself, and records it in
`.authgate/local.json` (or `$AUTHGATE_STATE_DIR/local.json`) so admin commands in another
terminal target the same moto server.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from authgate_cli.local import template

STATE_DIR_ENV = "AUTHGATE_STATE_DIR"
FAKE_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
}
# Every variable a local stack may set; applying a stack first clears the ones it does not set,
# so a stale value from the parent shell cannot leak in (e.g. an endpoint of another stack).
MANAGED = ("AUTHGATE_AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB")


def environment(*, issuer: str, aws_endpoint: str | None, dynamodb_endpoint: str | None = None,
                region: str = "us-east-1") -> dict[str, str]:
    """What handlers of a local stack see: stage local, the issuer, AWS endpoints and table names.

    With an external DynamoDB endpoint, the other services (Secrets Manager, KMS) stay on the
    embedded moto: botocore's per-service AWS_ENDPOINT_URL_DYNAMODB beats AWS_ENDPOINT_URL.
    """
    env = {
        "AUTHGATE_STAGE": "local",
        "AUTHGATE_ISSUER": issuer,
        "AUTHGATE_SESSION_SECRET": secrets.token_urlsafe(48),
        "AWS_REGION": region,
        "AWS_DEFAULT_REGION": region,
        "POWERTOOLS_SERVICE_NAME": "authgate",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_METRICS_NAMESPACE": "authgate",
        **template.table_environment(),
    }
    if dynamodb_endpoint:
        if aws_endpoint:
            env["AWS_ENDPOINT_URL"] = aws_endpoint
        env["AWS_ENDPOINT_URL_DYNAMODB"] = dynamodb_endpoint
    elif aws_endpoint:
        env["AUTHGATE_AWS_ENDPOINT_URL"] = aws_endpoint
    return env


def apply(env: Mapping[str, str], *, fake_credentials: bool = True) -> None:
    """Set `env` in this process and forget every cache built from the previous environment."""
    for name in MANAGED:
        if name not in env:
            os.environ.pop(name, None)
    if fake_credentials:
        os.environ.update(FAKE_CREDENTIALS)
    os.environ.update(env)
    reset_caches()


def reset_caches() -> None:
    """Forget the runtime's settings, clients and warm caches (authgate.caches)."""
    from authgate import caches

    caches.reset()


def state_path() -> Path:
    base = os.environ.get(STATE_DIR_ENV)
    return Path(base) / "local.json" if base else template.REPO_ROOT / ".authgate" / "local.json"


def write_state(state: Mapping[str, Any]) -> Path:
    path = state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    # The state carries the session secret of a throwaway local stack: owner-only all the same.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(state, fh, indent=2)
    tmp.replace(path)
    return path


def read_state() -> dict[str, Any] | None:
    """The running local stack's state, or None when there is none (or its process is gone)."""
    path = state_path()
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    pid = state.get("pid")
    if isinstance(pid, int) and not _alive(pid):
        return None
    return state


def remove_state(pid: int) -> None:
    """Remove the state file if it still belongs to process `pid` (another serve may own it now)."""
    path = state_path()
    try:
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == pid:
            path.unlink()
    except (OSError, ValueError):
        pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
