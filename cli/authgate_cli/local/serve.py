"""`authgate serve`: bind, start the embedded AWS, bootstrap the stack, print how to try it, serve.

Order matters: both ports are bound first (a busy port fails before anything starts), moto is
made atomic before it serves, and the environment is set before any handler or store builds a
client. Two sites are served: the API (the API Gateway emulator) and, unless turned off, the
demo app on the demo clients' redirect URIs (authgate_cli.local.demo_app).
"""

from __future__ import annotations

import errno
import os
import socket
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from authgate_cli.local import stack
from authgate_cli.local.listeners import Site, Timeouts, listen, run
from authgate_cli.local.routing import Router
from authgate_cli.local.seed import DEMO_APP_ORIGIN, DEMO_SEED, SeedError, read_seed
from authgate_cli.local.server import Emulator
from authgate_cli.local.template import api_routes

DEFAULT_PORT = 3000
DEFAULT_CALLBACK_PORT = 8765


@dataclass(frozen=True)
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    # None: no demo app (nothing listens on the demo redirect URIs, which keep port 8765).
    callback_port: int | None = DEFAULT_CALLBACK_PORT
    seed: Path | None = None
    dynamodb_endpoint: str | None = None
    data_dir: Path | None = None
    timeouts: Timeouts = field(default_factory=Timeouts)
    # draft-ietf-oauth-client-id-metadata-document 8.6's development exception (docs/agents.md).
    allow_loopback_outbound: bool = False


def port_from_env(name: str, default: int) -> int:
    """A port number from environment variable `name`, else `default`; a bad value stops `serve`."""
    raw = os.environ.get(name, "")
    if not raw:
        return default
    if not raw.isdigit() or not 0 <= int(raw) <= 65535:
        raise SystemExit(f"authgate serve: {name} must be a port number, got {raw!r}")
    return int(raw)


def default_port() -> int:
    return port_from_env("PORT", DEFAULT_PORT)


def default_callback_port() -> int | None:
    """$CALLBACK_PORT (a port, 0, or off: no demo app), else 8765."""
    if os.environ.get("CALLBACK_PORT") == "off":
        return None
    return port_from_env("CALLBACK_PORT", DEFAULT_CALLBACK_PORT)


def serve(options: ServeOptions, out: TextIO = sys.stdout) -> int:
    """Run a local stack until Ctrl-C or SIGTERM; the exit status of `authgate serve`."""
    if options.data_dir is not None and options.dynamodb_endpoint:
        print("authgate serve: --data keeps the embedded AWS's data; an external --dynamodb-endpoint keeps its "
              "own: give one of them", file=sys.stderr)
        return 2
    if options.data_dir is None:
        return _serve(options, out, None)
    from authgate_cli.local import snapshot

    try:
        with snapshot.claim(options.data_dir):
            return _serve(options, out, snapshot.read(options.data_dir))
    except (snapshot.DataDirError, OSError) as exc:
        print(f"authgate serve: --data {options.data_dir}: {exc}", file=sys.stderr)
        return 2


def _serve(options: ServeOptions, out: TextIO, saved: dict[str, Any] | None) -> int:
    api_sock = _bind(options.host, options.port, "--port or PORT")
    if api_sock is None:
        return 1
    demo_sock = None
    if options.callback_port is not None:
        demo_sock = _bind(options.host, options.callback_port,
                          "--callback-port or CALLBACK_PORT (0 picks a free port, off runs no demo app)",
                          what="the demo app's port")
        if demo_sock is None:
            api_sock.close()
            return 1
    # The demo identity provider (Demo Corp SSO) runs with the demo app, on the port after it (any free one when the
    # demo app's is): authgate_cli.local.demo_idp.
    idp_sock = None
    if demo_sock is not None:
        idp_sock = _bind(options.host, options.callback_port + 1 if options.callback_port else 0,
                         "--callback-port or CALLBACK_PORT (it runs on the port after the demo app's)",
                         what="the demo identity provider's port")
        if idp_sock is None:
            api_sock.close()
            demo_sock.close()
            return 1
    host = "localhost" if options.host == "localhost" else "127.0.0.1"
    # The issuer must be a loopback http URL (authgate.settings accepts no other plain-http issuer).
    issuer = f"http://{host}:{api_sock.getsockname()[1]}"
    demo_origin = f"http://{host}:{demo_sock.getsockname()[1]}" if demo_sock else DEMO_APP_ORIGIN
    idp_origin = f"http://{host}:{idp_sock.getsockname()[1]}" if idp_sock else ""
    seed = options.seed or DEMO_SEED
    try:
        sections = read_seed(seed, demo_origin)
        _check_usage_plans(seed, sections)
    except SeedError as exc:  # names the file and what is wrong
        print(f"authgate serve: bad seed file: {exc}", file=sys.stderr)
        for sock in (api_sock, demo_sock, idp_sock):
            if sock is not None:
                sock.close()
        return 2

    api_keys = [k for k in sections.get("api_keys", []) if isinstance(k, dict) and k.get("value")]
    trail = audit_path(issuer, options.data_dir)
    from authgate_cli.local.outside_writes import OutsideWrites

    # Admin commands write through their own moto port; the functions' warm caches are dropped before the next
    # request (authgate_cli.local.outside_writes).
    writes = OutsideWrites()
    emulator = Emulator(Router(api_routes()), issuer=issuer, log=out,
                        api_keys={k["value"]: k.get("usage_plan", "") for k in api_keys}, outside_writes=writes)
    from authgate_cli.local.asgi import GatewayApp

    sites = [Site(api_sock, GatewayApp(emulator))]
    if demo_sock is not None:
        from authgate_cli.local.demo_app import AGENT_PAYER, DemoApp, demo_agent, demo_clients

        users = [u for u in sections.get("users", []) if u.get("username") and u.get("password")]
        payer = next((u for u in users if u["username"] == AGENT_PAYER), {})
        sites.append(Site(demo_sock, DemoApp(issuer=issuer, origin=demo_origin,
                                             clients=demo_clients(sections.get("clients", []), demo_origin,
                                                                  sections.get("tenants", [])),
                                             api_key=api_keys[0]["value"] if api_keys else None,
                                             user=(users[0]["username"], users[0]["password"]) if users else None,
                                             log=out, outbox=str(outbox_path(issuer)), audit_trail=str(trail),
                                             agent=demo_agent(sections.get("clients", [])),
                                             payer_key=str(payer.get("totp_secret") or ""))))

    if idp_sock is not None:
        from authgate_cli.local.demo_idp import DemoIdp

        sites.append(Site(idp_sock, DemoIdp(issuer=idp_origin, authgate=issuer)))

    from authgate_cli.local import embedded

    if options.data_dir is not None:
        from authgate_cli.local.snapshot import watch_writes

        watch_writes()
    aws = embedded.start(writes)
    env = stack.environment(issuer=issuer, aws_endpoint=aws.endpoint, dynamodb_endpoint=options.dynamodb_endpoint)
    if idp_origin:
        # The one loopback origin the relying party may reach without --allow-loopback-outbound.
        env["AUTHGATE_DEMO_UPSTREAM"] = idp_origin
    if options.allow_loopback_outbound:
        env["AUTHGATE_ALLOW_LOOPBACK_OUTBOUND"] = "true"
    # Off unless the shell turns it on; recorded with the stack, so `authgate clients create --grant
    # password` in another terminal knows whether these handlers serve the grant.
    env["AUTHGATE_PASSWORD_GRANT"] = os.environ.get("AUTHGATE_PASSWORD_GRANT") or "false"
    # Mail is never sent locally: it lands in this server's outbox, which the demo app shows
    # (authgate.mail.outbox; docs/local.md). A new server starts with an empty one.
    outbox = outbox_path(issuer)
    outbox.unlink(missing_ok=True)
    env["AUTHGATE_OUTBOX"] = str(outbox)
    # The audit trail's chained objects (docs/audit.md): kept under --data, else beside the state file and
    # begun anew, as everything else of an in-memory stack is.
    env["AUTHGATE_AUDIT_DIR"] = str(trail)
    if saved and saved.get("session_secret"):
        env["AUTHGATE_SESSION_SECRET"] = str(saved["session_secret"])  # open sign-in forms still post
    stack.apply(env, fake_credentials=not (options.dynamodb_endpoint and os.environ.get("AWS_ACCESS_KEY_ID")))
    saver = None
    poller = None
    from authgate_cli.local.audit_trail import AuditPump

    pump = AuditPump()
    try:
        data_note = _prepare(options, seed, demo_origin, saved)
        secret_arn = stack.share_session_secret(env["AUTHGATE_SESSION_SECRET"])
        # Back-channel logout calls go out from a background thread, as the deliver function
        # consumes the queue in AWS (authgate_cli.local.deliveries).
        from authgate import aws as services
        from authgate_cli.local.deliveries import DeliveryPoller

        poller = DeliveryPoller(services.sqs(), env["AUTHGATE_DELIVERIES_QUEUE"])
        poller.start()
        # The handlers' audit lines go to the trail from a background thread, as the audit function
        # consumes the stream in AWS (authgate_cli.local.audit_trail).
        pump.start()
        if options.data_dir is not None:
            from authgate import aws as clients
            from authgate_cli.local.snapshot import Saver

            saver = Saver(options.data_dir, clients.dynamodb(), clients.secretsmanager(),
                          env["AUTHGATE_SESSION_SECRET"])
            saver.start()
    except Exception as exc:  # noqa: BLE001 - start-up failure: say what failed and stop
        print(f"authgate serve: could not prepare the local stack: {type(exc).__name__}: {exc}", file=sys.stderr)
        for site in sites:
            site.sock.close()
        if poller is not None:
            poller.stop()
        pump.stop()
        aws.stop()
        return 1
    pid = os.getpid()
    stack.running()  # forget servers that died without cleaning up
    # Other processes (admin commands, the aws CLI) use the embedded AWS's other port, whose writes drop the
    # functions' warm caches (authgate_cli.local.outside_writes).
    stack.write_state({
        "pid": pid, "base_url": issuer, "issuer": issuer, "aws_endpoint": aws.outside_endpoint,
        "dynamodb_endpoint": options.dynamodb_endpoint or aws.outside_endpoint, "seed": str(seed),
        "demo_app": demo_origin if demo_sock else None,
        # The session secret stays in this process; admin commands (which seal identity providers' secrets
        # with it) read it from the embedded Secrets Manager, as on a stage they read the stack's SessionSecret.
        "env": {**{k: v for k, v in stack.with_aws_at(env, aws.outside_endpoint).items()
                   if k != "AUTHGATE_SESSION_SECRET"}, "AUTHGATE_SESSION_SECRET_ARN": secret_arn},
    })
    out.write(banner(issuer, sections, aws.outside_endpoint, options.dynamodb_endpoint,
                     demo_origin if demo_sock else None, data_note, idp_origin))
    out.flush()

    try:
        run(sites, options.timeouts)
    except KeyboardInterrupt:  # Ctrl-C before the loop took over the signal
        pass
    finally:
        stack.remove_state(issuer, pid)
        try:
            if poller is not None:
                poller.stop()
            pump.stop()
            if saver is not None:
                saver.close()
        finally:
            aws.stop()
    out.write("authgate serve: stopped\n")
    out.flush()
    return 0


def _check_usage_plans(seed: Path, sections: dict[str, Any]) -> None:
    """Each API key's usage plan is one of template.yaml's (found now, not as a 500 on its first request)."""
    from authgate_cli.local.usage_plans import load_plans

    plans = sorted(load_plans())
    for key in sections.get("api_keys", []):
        if isinstance(key, dict) and key.get("value") and key.get("usage_plan") not in plans:
            raise SeedError(f"{seed}: api_keys: usage_plan {key.get('usage_plan')!r} is not a usage plan of "
                            f"template.yaml ({', '.join(plans)})")


def _prepare(options: ServeOptions, seed: Path, demo_origin: str, saved: dict[str, Any] | None) -> str:
    """Tables, keys and data: restored from --data, else bootstrapped from the seed; says which."""
    from authgate_cli.local.bootstrap import bootstrap

    if saved is None:
        bootstrap(seed, demo_app=demo_origin)
        if options.data_dir is None:
            return "in memory: stopping the server forgets it (--data DIR keeps it)"
        return f"{options.data_dir} (new: the seed was loaded; kept across restarts)"
    from authgate import aws as clients
    from authgate_cli.local.bootstrap import ensure_deployed
    from authgate_cli.local.snapshot import restore

    items = restore(saved, clients.dynamodb(), clients.secretsmanager())
    from authgate_cli.local.template import create_queues

    create_queues(clients.sqs())  # queues are not saved: what was queued when the server stopped is lost
    ensure_deployed()
    return (f"{options.data_dir} (restored {items} items and {len(saved.get('secrets') or [])} secrets "
            f"saved {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(saved.get('saved_at', 0)))}; "
            "the seed was not loaded again)")


def _bind(host: str, port: int, hint: str, what: str = "port") -> socket.socket | None:
    """A listening socket, or None after one line on stderr saying why not."""
    try:
        return listen(host, port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            print(f"authgate serve: {what} {port} is already in use (choose another with {hint})", file=sys.stderr)
        else:
            print(f"authgate serve: cannot listen on {host}:{port}: {exc.strerror}", file=sys.stderr)
        return None


def banner(base: str, sections: dict[str, Any], aws_endpoint: str, dynamodb_endpoint: str | None,
           demo_app: str | None = None, data: str | None = None, demo_idp: str = "") -> str:
    """What a new user needs on start: where it runs, who to log in as, and what to type first."""
    lines = [f"authgate is running on {base}  (Ctrl-C to stop)"]
    if demo_app:
        lines.append(f"Demo app: {demo_app}/  (open it in a browser: sign in, approve, get tokens)")
    if demo_idp:
        lines.append(f"Demo Corp SSO: {demo_idp}/  (an upstream identity provider of tenant demo, for people "
                     "@democorp.example: docs/local.md)")
    if any(u.get("roles") for u in sections.get("users", [])):
        lines.append(f"Console: {base}/console  (the operators' console: sign in as an operator below, docs/console.md)")
    if data:
        lines.append(f"Data: {data}")
    lines.append("")
    clients = sections.get("clients", [])
    local_clients = [c for c in clients if c.get("environment", "local") == "local"]
    if local_clients:
        lines.append("Demo clients (client_id / secret):")
        for c in local_clients:
            secret = c.get("secret") or ("(private_key_jwt: docs/fapi2.md)" if c.get("jwks")
                                         else "(public client: PKCE, no secret)")
            grants = " ".join(c.get("grant_types", []))
            lines.append(f"  {c['client_id']:<16} {secret:<34} {grants}")
    users = sections.get("users", [])
    if users:
        lines.append("Users (username / password):")
        lines.extend(f"  {u['username']} / {u.get('password', '')}  (tenant {u.get('tenant_id', '')}"
                     + (f"; one-time code key {u['totp_secret']}" if u.get("totp_secret") else "")
                     + (f"; console role {', '.join(sorted(u['roles']))}" if u.get("roles") else "") + ")"
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


def audit_path(issuer: str, data_dir: Path | None) -> Path:
    """The trail's directory: DIR/audit with --data DIR (kept), else `<host>_<port>.audit` beside the state file,
    emptied for a new server."""
    if data_dir is not None:
        return data_dir / "audit"
    path = stack.state_path(issuer).with_suffix(".audit")
    if path.exists():
        import shutil

        shutil.rmtree(path)
    return path


def outbox_path(issuer: str) -> Path:
    """This server's outbox (authgate.mail.outbox): beside its state file, `<host>_<port>.outbox.jsonl`."""
    return stack.state_path(issuer).with_suffix(".outbox.jsonl")
