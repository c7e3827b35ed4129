"""The environment of a local stack and the state file that lets other processes find it.

`authgate serve` computes the environment its handlers see (issuer, stage, AWS endpoint, table
names, a per-process session secret, fake credentials), applies it to itself, and records it in
one file per server, `.authgate/servers/<host>_<port>.json` (or under `$AUTHGATE_STATE_DIR`), so
admin commands in another terminal target the same moto server. Two servers on two ports never
touch each other's file; a file whose process is gone (killed, crashed) is removed by whoever
reads it next.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

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
LOCAL_MAIL_FROM = "authgate <no-reply@localhost>"


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
        # The local stack shows the whole agent flow (docs/agents.md): metadata documents are fetched.
        "AUTHGATE_CLIENT_METADATA_DOCUMENTS": "true",
        "AUTHGATE_DYNAMIC_REGISTRATION": "true",
        # A sign-in that names no organisation is for the demo tenant (docs/users.md).
        "AUTHGATE_DEFAULT_TENANT": "demo",
        # The sender of the mail the outbox keeps (authgate.mail.outbox), as a stage's MailFrom would be.
        "AUTHGATE_MAIL_FROM": LOCAL_MAIL_FROM,
        **template.table_environment(),
        **template.queue_environment(region=region),
    }
    if dynamodb_endpoint:
        if aws_endpoint:
            env["AWS_ENDPOINT_URL"] = aws_endpoint
        env["AWS_ENDPOINT_URL_DYNAMODB"] = dynamodb_endpoint
    elif aws_endpoint:
        env["AUTHGATE_AWS_ENDPOINT_URL"] = aws_endpoint
    return env


SESSION_SECRET_NAME = "authgate-local-session-secret"


def share_session_secret(secret: str) -> str:
    """Keep the stack's session secret in the embedded Secrets Manager for admin commands in other processes
    (they seal identity providers' secrets with it, as on a stage they read the SessionSecret); its ARN."""
    from authgate import aws

    client = aws.secretsmanager()
    try:
        return str(client.create_secret(Name=SESSION_SECRET_NAME, SecretString=secret)["ARN"])
    except client.exceptions.ResourceExistsException:  # restored from --data
        return str(client.put_secret_value(SecretId=SESSION_SECRET_NAME, SecretString=secret)["ARN"])


def with_aws_at(env: Mapping[str, str], endpoint: str) -> dict[str, str]:
    """`env` with the embedded AWS at `endpoint` (the port other processes use: authgate_cli.local.outside_writes);
    an external DynamoDB endpoint stays as it is."""
    return {k: endpoint if k in ("AUTHGATE_AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL") else v for k, v in env.items()}


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


class NoStack(LookupError):
    """No running local stack matches (none running, several without --url, or an unknown URL)."""


def state_dir() -> Path:
    """Where running stacks are recorded: $AUTHGATE_STATE_DIR, else .authgate/ in the checkout."""
    base = os.environ.get(STATE_DIR_ENV)
    return (Path(base) if base else template.REPO_ROOT / ".authgate") / "servers"


def normalize_url(url: str) -> str:
    """http://HOST:PORT as a state key: scheme and host lower-cased, no trailing slash."""
    parts = urlsplit(url.strip() if "//" in url else f"http://{url.strip()}")
    try:
        port = parts.port
    except ValueError:
        port = None
    host = (parts.hostname or "").lower()
    if parts.scheme.lower() not in ("http", "https") or not host or port is None or parts.path not in ("", "/"):
        raise NoStack(f"--url must be the base URL of a local stack, like http://127.0.0.1:3000 (got {url!r})")
    return f"{parts.scheme.lower()}://{host}:{port}"


def state_path(base_url: str) -> Path:
    parts = urlsplit(normalize_url(base_url))
    return state_dir() / f"{parts.hostname}_{parts.port}.json"


def write_state(state: Mapping[str, Any]) -> Path:
    """Record a running stack (owner-only: it names the stack's AWS endpoint and tables)."""
    path = state_path(str(state["base_url"]))
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {**state, "process_started": _process_started(int(state["pid"]))}
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(record, fh, indent=2)
    tmp.replace(path)
    return path


def running(on_stale: Callable[[str, str], None] | None = None) -> list[dict[str, Any]]:
    """Every running local stack; the record of one whose process is gone is removed (`on_stale` hears of it)."""
    found = []
    for path in sorted(state_dir().glob("*.json")):
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
            pid, url = int(state["pid"]), str(state["base_url"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # being written, or not ours: leave it alone
        if _same_process(pid, state.get("process_started")):
            found.append(state)
            continue
        path.unlink(missing_ok=True)
        if on_stale is not None:
            on_stale(url, f"process {pid} is gone")
    return found


def find(url: str | None = None, on_stale: Callable[[str, str], None] | None = None) -> dict[str, Any]:
    """The running stack at `url`, or the only one running; NoStack says why there is none."""
    stacks = running(on_stale)
    urls = ", ".join(str(s["base_url"]) for s in stacks)
    if url is not None:
        wanted = normalize_url(url)
        for state in stacks:
            if normalize_url(str(state["base_url"])) == wanted:
                return state
        raise NoStack(f"no local stack is running at {wanted}" + (f" (running: {urls})" if urls else ""))
    if not stacks:
        raise NoStack(f"no local stack is running (nothing recorded in {state_dir()}): start one with "
                      "`authgate serve` or `make run` (or pass --stack-name NAME for a deployed stack)")
    if len(stacks) > 1:
        raise NoStack(f"{len(stacks)} local stacks are running ({urls}): choose one with --url")
    return stacks[0]


def remove_state(base_url: str, pid: int) -> None:
    """Remove the record of `base_url` if it still belongs to process `pid`."""
    path = state_path(base_url)
    try:
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == pid:
            path.unlink()
    except (OSError, ValueError):
        pass


def _same_process(pid: int, started: Any) -> bool:
    """Alive, and (where /proc tells) the same process that wrote the record, not a reused pid."""
    if not _alive(pid):
        return False
    now = _process_started(pid)
    return started is None or now is None or now == started


def _process_started(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (Linux /proc/PID/stat field 22), if known."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return None
    # The command name (field 2) may contain spaces and parentheses: fields resume after the last ")".
    return int(stat.rsplit(")", 1)[1].split()[19])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
