"""`authgate invoke FUNCTION EVENT.json`: one handler, one event, like `sam local invoke`, no Docker.

AWS is moto in this process (atomic, tables from the template, keys, the demo seed), so it
works without a running `serve`. Event files may carry placeholders:
`{{access_token client=demo-service scope=charges:write}}` becomes a freshly minted access token
for that seeded client (with `subject=alice acr=password`, a token of a user's sign-in of that
level, now: RFC 9068 2.2.1), `{{filler bytes=70000}}` that many bytes of text; and an `_expect` member documenting the expected status (API Gateway
ignores unknown members; it is removed before the handler sees the event).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from authgate_cli.local.context import LambdaContext

LOCAL_ISSUER = "http://127.0.0.1:3000"
PLACEHOLDER = re.compile(r"\{\{\s*(\w+)((?:\s+[\w:.-]+=[^\s}]*)*)\s*\}\}")


class InvokeError(Exception):
    """Bad input to `invoke` (missing or malformed event, unknown function): exit status 2."""


def read_event(path: Path) -> dict[str, Any]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvokeError(f"event file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvokeError(f"cannot read event file {path}: {exc}") from None
    try:
        event = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvokeError(f"event file {path} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(event, dict):
        raise InvokeError(f"event file {path} must hold a JSON object")
    return event


def expand(value: Any, mint: Callable[[str, dict[str, str]], str]) -> Any:
    """A copy of `value` with every {{kind key=value ...}} in its strings replaced by `mint(kind, args)`."""
    if isinstance(value, dict):
        return {k: expand(v, mint) for k, v in value.items()}
    if isinstance(value, list):
        return [expand(v, mint) for v in value]
    if isinstance(value, str) and "{{" in value:
        def replace(m: re.Match[str]) -> str:
            args = dict(pair.split("=", 1) for pair in m.group(2).split())
            return mint(m.group(1), args)
        return PLACEHOLDER.sub(replace, value)
    return value


def mint(kind: str, args: dict[str, str]) -> str:
    """Placeholder values, minted against the current (local) stack."""
    if kind == "filler":
        # Bulk text for size-limit cases, so the event file itself stays small.
        return "x" * int(args.get("bytes", "0"))
    if kind != "access_token":
        raise InvokeError(f"unknown placeholder {{{{{kind}}}}}; known: access_token, filler")
    client_id = args.get("client")
    if not client_id:
        raise InvokeError("{{access_token}} needs client=CLIENT_ID")
    from authgate import clock
    from authgate.settings import get_settings
    from authgate.stores.clients import ClientStore
    from authgate.tokens.access_token import issue_access_token

    client = ClientStore().get(client_id)
    if client is None:
        raise InvokeError(f"{{{{access_token}}}}: no seeded client {client_id!r}")
    scope = args.get("scope", " ".join(client.scopes)).replace(",", " ")
    issued = issue_access_token(issuer=get_settings().issuer, subject=args.get("subject", client_id),
                                client_id=client_id, tenant=client.tenant_id, scope=scope,
                                audience=args.get("audience"), acr=args.get("acr", ""),
                                auth_time=clock.seconds() if args.get("acr") else None)
    return issued.token


def prepare(event: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(event for the handler, its `_expect`), placeholders expanded."""
    event = dict(event)
    expect = event.pop("_expect", {}) or {}
    return expand(event, mint), expect


@contextlib.contextmanager
def local_aws(seed: Path | None = None) -> Iterator[None]:
    """moto in this process, atomic, with the template's tables, keys and a seed loaded; an audit trail in a
    temporary directory."""
    from moto import mock_aws

    from authgate_cli.local import stack
    from authgate_cli.local.atomic import make_dynamodb_atomic
    from authgate_cli.local.bootstrap import bootstrap
    from authgate_cli.local.lambda_invoke import answer_in_process

    make_dynamodb_atomic()
    answer_in_process()
    saved = dict(os.environ)
    try:
        # The audit trail of one invocation (the audit function keeps what it is given there).
        with mock_aws(), tempfile.TemporaryDirectory(prefix="authgate-invoke-audit-") as trail:
            stack.apply({**stack.environment(issuer=LOCAL_ISSUER, aws_endpoint=None), "AUTHGATE_AUDIT_DIR": trail})
            bootstrap(seed)
            yield
    finally:
        # Leave the caller's environment as it was (tests run this in a shared process).
        os.environ.clear()
        os.environ.update(saved)
        stack.reset_caches()


def run(function: str, event: dict[str, Any]) -> Any:
    """Invoke `function` on `event` (placeholders expanded) in the current environment."""
    from authgate_cli.local.functions import UnknownFunction, load_handler

    try:
        handler = load_handler(function)
    except UnknownFunction as exc:
        raise InvokeError(str(exc)) from None
    prepared, _ = prepare(event)
    return handler(prepared, LambdaContext(function))


def main(function: str, event_path: Path, seed: Path | None = None) -> int:
    """CLI entry: the result as JSON on stdout; handler logs on stderr; bad input exits 2."""
    from authgate_cli.local.functions import names

    try:
        if function not in names():
            raise InvokeError(f"unknown function {function!r}; known: {', '.join(names())}")
        event = read_event(event_path)
        # Handler and library logs go to stderr so stdout is exactly the result, as with sam.
        with contextlib.redirect_stdout(sys.stderr), local_aws(seed):
            try:
                result = run(function, event)
            except InvokeError:
                raise
            except Exception as exc:  # noqa: BLE001 - reported the way Lambda reports a crash
                traceback.print_exc()
                result = {"errorMessage": str(exc), "errorType": type(exc).__name__}
                failed = True
            else:
                failed = False
    except InvokeError as exc:
        print(f"authgate invoke: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 1 if failed else 0
