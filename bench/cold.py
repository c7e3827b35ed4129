"""Cold init per function against the floor of a DynamoDB-reading function, medians over fresh processes.

The floor is `import botocore.session` plus building one DynamoDB client; `python -c "import
boto3"` is reported beside it. The reference stack (bench/reference) is measured the same way.

The scenario of each function (its first request's event and the AWS answers a cold moto run
of that request got) is recorded here; bench/cold_child.py then replays it in a fresh
interpreter. A function's cold init is the child's process wall time (interpreter start to the
first response, as the baseline's is to its last statement; every process leaves with os._exit,
as a frozen Lambda container never shuts down) minus the bench's scaffolding that the child
timed and reported.
Rounds interleave the baseline and every function, so background load hits all alike, and a
function's ratio to the floor is the median of its per-round ratios (this 2-core machine has
slow stretches that lift whole rounds by a third).

The interpreter is the lean one when it exists (.venv-bench: boto3 plus the layer's
requirements only, the layer on PYTHONPATH as /opt/python is on Lambda), else this one.
"""

from __future__ import annotations

import json
import os
import pickle
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.operations import BENCH_LIMITS, sample, with_header
from bench.recording import recording

ROOT = Path(__file__).resolve().parents[1]
LEAN_PYTHON = ROOT / ".venv-bench" / "bin" / "python"
FIRST_REQUEST = {  # function: (sample event, status of its success)
    "authorize": ("authorize-get-login-page", 200),
    "token": ("token-client-credentials", 200),
    "jwks": ("jwks-get-jwks", 200),
    "charges": ("charges-create-idempotent", 201),
    "rotate_keys": ("rotate_keys-scheduled", None),
    # The audit stream's consumer on one subscription batch (docs/audit.md), its chain in a bucket (bench.audit).
    "audit": ("audit-subscription-batch", None),
    # The operators' console (off the token and charges paths): its home page, for an operator whose console
    # session is open (console_cookie: the sample without a cookie is the redirect to sign in).
    "console": ("console-get-home-sign-in-302", 200),
}
# The reference stack (bench/reference) on the same first requests: (app, sample event, status).
REFERENCE_FIRST_REQUEST = {
    "token": ("token-client-credentials", 200),
    "charges": ("charges-create-idempotent", 201),
}
ENV_PREFIXES = ("AUTHGATE_", "AWS_", "POWERTOOLS_", "REFERENCE_")
# The floor of any function that reads DynamoDB: botocore imported and one client built.
# Every function's cold init must stay within this multiple of the floor (issue 15).
TARGET = 1.2
FLOOR = ("import botocore.session; botocore.session.get_session().create_client("
         "'dynamodb', region_name='us-east-1', aws_access_key_id='x', aws_secret_access_key='x')")
# Every measured process ends with os._exit: a Lambda container is frozen after its first
# response, never torn down, so interpreter shutdown (module teardown, a last collection) is no
# part of a cold start. The baseline, the floor and the functions all leave the same way.
EXIT = "; import os; os._exit(0)"
BOTO3 = "import boto3"


def interpreter() -> tuple[str, bool]:
    """(python executable, whether it is the lean environment)."""
    if LEAN_PYTHON.exists():
        return str(LEAN_PYTHON), True
    import sys

    return sys.executable, False


def record_scenarios(directory: Path) -> dict[str, Path]:
    """One pickle per function: app path, first event, AWS answers of a cold run, environment.

    authgate's functions are named as in template.yaml; the reference stack's as "reference
    token" and "reference charges"."""
    from authgate_cli.local import stack
    from authgate_cli.local.context import LambdaContext
    from authgate_cli.local.functions import load_handler
    from authgate_cli.local.invoke import local_aws
    from authgate_cli.local.template import function_dir, function_names
    from bench import reference

    paths: dict[str, Path] = {}

    def save(name: str, app: Path, event: dict[str, Any], rec: Any, status: int | None, kind: str) -> None:
        env = {k: v for k, v in os.environ.items() if k.startswith(ENV_PREFIXES)}
        path = directory / f"{name.replace(' ', '-')}.pickle"
        path.write_bytes(pickle.dumps({
            "function": name, "kind": kind, "app": str(app), "event": event, "services": rec.services(),
            "calls": [(c.service, c.operation, c.response) for c in rec.calls], "env": env, "status": status,
        }))
        paths[name] = path

    def checked(name: str, result: dict[str, Any], status: int | None) -> None:
        if status is not None and result["statusCode"] != status:
            raise AssertionError(f"cold scenario {name}: {result['statusCode']} {result['body'][:300]}")

    with local_aws():
        os.environ.update(BENCH_LIMITS)
        for name, (event_name, status) in FIRST_REQUEST.items():
            event = sample(event_name)
            if name == "charges":
                event = with_header(event, "Idempotency-Key", f"bench-cold-{time.time_ns()}")
            if name == "audit":
                from bench.audit import on_a_stage

                event = on_a_stage(event)
            if name == "console":
                event = with_header(event, "Cookie", console_cookie())
            handler = load_handler(name)
            stack.reset_caches()  # a fresh container: no settings, clients or caches
            with recording() as rec:
                checked(name, handler(event, LambdaContext(name)), status)
            save(name, function_dir(function_names()[name]) / "app.py", event, rec, status, "authgate")
        for function, (event_name, status) in REFERENCE_FIRST_REQUEST.items():
            name = f"reference {function}"
            event = sample(event_name)
            if function == "charges":
                event = with_header(event, "Idempotency-Key", f"reference-cold-{time.time_ns()}")
            module = reference.load(function)
            with recording(module.clients()) as rec:
                checked(name, module.handler(event, LambdaContext(name)), status)
            save(name, reference.APPS[function], event, rec, status, "reference")
    return paths


def console_cookie(username: str = "olivia") -> str:
    """The Cookie header of a console session of the seeded operator, opened as the console's callback opens one."""
    from authgate import base64url, clock
    from authgate.settings import get_settings
    from authgate.stores.console_sessions import ConsoleSessionStore
    from authgate.stores.users import UserStore

    settings = get_settings()
    user = UserStore().get(settings.operators_tenant, username)
    assert user is not None, f"the seed has no operator {username}"
    now = clock.seconds()
    secret, _ = ConsoleSessionStore().create(
        tenant_id=settings.operators_tenant, username=username, user_id=user.user_id,
        generation=user.session_generation, auth_time=now, expires_at=now + settings.console_max_age, sid="bench",
        id_token="bench")
    return f"authgate_console={base64url.encode(username.encode())}.{secret}"


def _child_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "TMPDIR") if k in os.environ}
    env["PYTHONPATH"] = f"{ROOT / 'layers' / 'authgate'}{os.pathsep}{ROOT}"
    return {**env, **extra}


def _wall(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return (time.perf_counter() - start) * 1e3


def measure(rounds: int) -> dict[str, Any]:
    python, lean = interpreter()
    with tempfile.TemporaryDirectory(prefix="authgate-bench-") as tmp:
        scenarios = record_scenarios(Path(tmp))
        envs = {name: _child_env(pickle.loads(path.read_bytes())["env"]) for name, path in scenarios.items()}
        baseline_env = _child_env({})
        samples: dict[str, list[dict[str, Any]]] = {name: [] for name in scenarios}
        baseline: list[float] = []
        floor: list[float] = []
        # Round 0 is discarded: it writes bytecode caches and warms the page cache.
        for round_ in range(rounds + 1):
            wall = _wall([python, "-c", BOTO3 + EXIT], baseline_env)
            floor_wall = _wall([python, "-c", FLOOR + EXIT], baseline_env)
            if round_:
                baseline.append(wall)
                floor.append(floor_wall)
            for name, path in scenarios.items():
                out = Path(tmp) / f"{name.replace(' ', '-')}.json"
                try:
                    wall = _wall([python, str(ROOT / "bench" / "cold_child.py"), str(path), str(out)], envs[name])
                except subprocess.CalledProcessError as exc:
                    raise RuntimeError(f"cold start of {name} failed:\n{exc.stderr.decode()[-3000:]}") from None
                child = json.loads(out.read_text("utf-8"))
                if child["status"] != pickle.loads(path.read_bytes())["status"]:
                    raise RuntimeError(f"cold start of {name} answered {child['status']}")
                if round_:
                    samples[name].append({**child, "wall_ms": wall, "cold_ms": wall - child["scaffolding_ms"]})
        calls = {name: aws_calls(pickle.loads(path.read_bytes())["calls"]) for name, path in scenarios.items()}
    boto3_ms = statistics.median(baseline)
    floor_ms = statistics.median(floor)
    figures: dict[str, Any] = {}
    for name, runs in samples.items():
        cold = statistics.median(r["cold_ms"] for r in runs)
        figures[name] = {
            # The AWS calls of the first request (every service: DynamoDB, Secrets Manager, KMS).
            "aws_calls": sum(calls[name].values()), "aws_operations": calls[name],
            # Against the floor: the median of each round's own ratio (the function's cold start over
            # the floor measured moments before it), so a slow stretch of the machine weighs on both
            # sides of a ratio alike rather than on a median of one side only.
            "cold_ms": cold, "ratio": cold / boto3_ms,
            "floor_ratio": statistics.median(r["cold_ms"] / f for r, f in zip(runs, floor, strict=True)),
            "import_ms": statistics.median(r["import_ms"] for r in runs),
            "clients_ms": statistics.median(r["clients_ms"] for r in runs),
            "first_request_ms": statistics.median(r["first_request_ms"] for r in runs),
            "loaded": runs[-1]["loaded"], "dev_only_modules": runs[-1]["dev_only_modules"],
            "runs": [round(r["cold_ms"], 1) for r in runs],
        }
    functions = {name: {**f, "target_floor_ratio": TARGET, "holds": f["floor_ratio"] <= TARGET}
                 for name, f in figures.items() if name in FIRST_REQUEST}
    reference = {name.removeprefix("reference "): f for name, f in figures.items() if name not in FIRST_REQUEST}
    versus = {name: functions[name]["cold_ms"] / ref["cold_ms"] for name, ref in reference.items()}
    first_request = {name: functions[name]["first_request_ms"] / ref["first_request_ms"]
                     for name, ref in reference.items()}
    return {"interpreter": python, "lean": lean, "processes": rounds, "import_boto3_ms": boto3_ms,
            "dynamodb_client_floor_ms": floor_ms, "dynamodb_client_floor_ratio": floor_ms / boto3_ms,
            "import_boto3_runs": [round(b, 1) for b in baseline], "floor_runs": [round(f, 1) for f in floor],
            "functions": functions,
            "reference": reference, "authgate_over_reference": versus,
            "first_request_over_reference": first_request}


def aws_calls(calls: list[tuple[str, str, Any]]) -> dict[str, int]:
    """How many times the recorded first request called each AWS operation, in call order."""
    counts: dict[str, int] = {}
    for _service, operation, _response in calls:
        counts[operation] = counts.get(operation, 0) + 1
    return counts
