"""`authgate serve`: bind, start the embedded AWS, bootstrap the stack, print how to try it, serve.

Order matters: the HTTP port is bound first (a busy port fails before anything starts), moto
is made atomic before it serves, and the environment is set before any handler or store builds
a client.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from authgate_cli.local import stack
from authgate_cli.local.listeners import Site, Timeouts, listen, run
from authgate_cli.local.routing import Router
from authgate_cli.local.seed import DEMO_SEED
from authgate_cli.local.server import Emulator
from authgate_cli.local.template import api_routes

DEFAULT_PORT = 3000


def default_port() -> int:
    raw = os.environ.get("PORT", "")
    if not raw:
        return DEFAULT_PORT
    if not raw.isdigit() or not 0 <= int(raw) <= 65535:
        raise SystemExit(f"authgate serve: PORT must be a port number, got {raw!r}")
    return int(raw)


def serve(*, host: str = "127.0.0.1", port: int = DEFAULT_PORT, seed: Path | None = None,
          dynamodb_endpoint: str | None = None, timeouts: Timeouts | None = None,
          out: TextIO = sys.stdout) -> int:
    seed = seed or DEMO_SEED
    try:
        sections = _read_seed(seed)
    except ValueError as exc:  # SeedError: names the file and what is wrong
        print(f"authgate serve: bad seed file: {exc}", file=sys.stderr)
        return 2
    emulator = Emulator(Router(api_routes()), issuer="", log=out)
    emulator.api_keys = {k["value"]: k.get("usage_plan", "") for k in sections.get("api_keys", [])
                         if isinstance(k, dict) and k.get("value")}
    try:
        sock = listen(host, port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            print(f"authgate serve: port {port} is already in use (choose another with --port or PORT)",
                  file=sys.stderr)
        else:
            print(f"authgate serve: cannot listen on {host}:{port}: {exc.strerror}", file=sys.stderr)
        return 1
    from authgate_cli.local.asgi import GatewayApp

    api = Site(sock, GatewayApp(emulator))
    bound_port = api.port
    # The issuer must be a loopback http URL (settings.py accepts no other plain-http issuer).
    issuer = f"http://{'localhost' if host == 'localhost' else '127.0.0.1'}:{bound_port}"
    emulator.issuer = issuer

    from authgate_cli.local import embedded

    aws = embedded.start()
    env = stack.environment(issuer=issuer, aws_endpoint=aws.endpoint, dynamodb_endpoint=dynamodb_endpoint)
    stack.apply(env, fake_credentials=not (dynamodb_endpoint and os.environ.get("AWS_ACCESS_KEY_ID")))
    try:
        from authgate_cli.local.bootstrap import bootstrap

        bootstrap(seed)
    except Exception as exc:  # noqa: BLE001 - start-up failure: say what failed and stop
        print(f"authgate serve: could not prepare the local stack: {type(exc).__name__}: {exc}", file=sys.stderr)
        sock.close()
        aws.stop()
        return 1
    pid = os.getpid()
    stack.running()  # forget servers that died without cleaning up
    stack.write_state({
        "pid": pid, "base_url": issuer, "issuer": issuer, "aws_endpoint": aws.endpoint,
        "dynamodb_endpoint": dynamodb_endpoint or aws.endpoint, "seed": str(seed),
        # The session secret stays in this process: admin commands never need it.
        "env": {k: v for k, v in env.items() if k != "AUTHGATE_SESSION_SECRET"},
    })
    out.write(banner(issuer, sections, aws.endpoint, dynamodb_endpoint))
    out.flush()

    try:
        run([api], timeouts or Timeouts())
    except KeyboardInterrupt:  # Ctrl-C before the loop took over the signal
        pass
    finally:
        aws.stop()
        stack.remove_state(issuer, pid)
    out.write("authgate serve: stopped\n")
    out.flush()
    return 0


def _read_seed(path: Path) -> dict[str, Any]:
    try:
        from authgate_cli.local.seed import read_seed
    except ImportError:  # the seed format is another issue's; until then there is nothing to show
        return {}
    return read_seed(path)


def banner(base: str, sections: dict[str, Any], aws_endpoint: str, dynamodb_endpoint: str | None) -> str:
    """What a new user needs on start: where it runs, who to log in as, and what to type first."""
    lines = [f"authgate is running on {base}  (Ctrl-C to stop)", ""]
    clients = sections.get("clients", [])
    local_clients = [c for c in clients if c.get("environment", "local") == "local"]
    if local_clients:
        lines.append("Demo clients (client_id / secret):")
        for c in local_clients:
            secret = c.get("secret") or "(public client: PKCE, no secret)"
            grants = " ".join(c.get("grant_types", []))
            lines.append(f"  {c['client_id']:<16} {secret:<34} {grants}")
    users = sections.get("users", [])
    if users:
        lines.append("Users (username / password):")
        lines.extend(f"  {u['username']} / {u.get('password', '')}  (tenant {u.get('tenant_id', '')})"
                     for u in users)
    keys = sections.get("api_keys", [])
    if keys:
        lines.append("API keys (x-api-key, required on /charges):")
        lines.extend(f"  {k['value']}  ({k.get('usage_plan', '')})" for k in keys)
    lines.append("")
    lines.append(f"AWS (moto) endpoint: {aws_endpoint}" + (
        f"; DynamoDB: {dynamodb_endpoint}" if dynamodb_endpoint else ""))
    lines.append("")
    lines.append("Try:")
    lines.append(f"  curl -s {base}/.well-known/oauth-authorization-server")
    service = next((c for c in local_clients if "client_credentials" in c.get("grant_types", [])
                    and c.get("secret")), None)
    if service:
        lines.append(f"  TOKEN=$(curl -s -u {service['client_id']}:{service['secret']} "
                     f"-d grant_type=client_credentials -d scope=charges:read {base}/oauth/token \\")
        lines.append("          | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"access_token\"])')")
        if keys:
            lines.append(f"  curl -s -H 'x-api-key: {keys[0]['value']}' "
                         f"-H \"Authorization: Bearer $TOKEN\" {base}/charges")
    lines.append("")
    return "\n".join(lines) + "\n"
