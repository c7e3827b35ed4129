"""One cold start, in a fresh interpreter: `python bench/cold_child.py SCENARIO.pickle RESULT.json`.

Run by bench.cold, never imported. What it counts as the function's cold init, as Lambda's INIT
plus first invoke would pay it: importing functions/<name>/app.py, building the AWS clients,
and serving the first request (every lazy import, settings, client, store, key and cache it
builds). AWS answers come from a Stubber queued with the responses a moto run of the same
request got, so no network or moto time is counted; the bench's own scaffolding (reading the
scenario, importing botocore.stub, queueing responses) is timed and reported so the parent
can subtract it. Only the standard library is imported before the handler.
"""

from __future__ import annotations

import importlib.util
import json
import pickle
import sys
import time

DEV_ONLY = ("moto", "yaml", "pytest", "hypothesis", "requests", "authlib", "playwright", "schemathesis")
NOTABLE = ("boto3", "botocore", "jwt", "cryptography", "pydantic", "aws_lambda_powertools", "lxml", "signxml")


class Context:
    """The Lambda context attributes handlers read (stdlib only, unlike authgate_cli.local.context)."""

    def __init__(self, name: str) -> None:
        self.function_name = name
        self.memory_limit_in_mb = 512
        self.aws_request_id = "cold-start"
        self.invoked_function_arn = f"arn:aws:lambda:us-east-1:123456789012:function:{name}"
        self.function_version = "$LATEST"
        self.log_group_name = f"/aws/lambda/{name}"
        self.log_stream_name = "bench"
        self._deadline = time.monotonic() + 10

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def main(scenario_path: str, result_path: str) -> None:
    began = time.perf_counter()
    with open(scenario_path, "rb") as f:
        scenario = pickle.load(f)
    scaffolding = time.perf_counter() - began

    start = time.perf_counter()
    spec = importlib.util.spec_from_file_location("app", scenario["app"])
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    imported = time.perf_counter()

    if scenario["kind"] == "reference":
        # The reference builds its clients at import, as the usual stack does.
        clients = module.clients()
    else:
        from authgate import aws

        clients = {service: getattr(aws, service)() for service in scenario["services"]}
    built = time.perf_counter()

    from bench.recording import (  # after the handler: it pays its own imports
        Call,
        Recording,
        Replay,
    )

    replay = Replay(clients={s: clients[s] for s in scenario["services"]})
    replay.queue(Recording([Call(*call) for call in scenario["calls"]]))
    replay.activate()
    context = Context(scenario["function"])
    stubbed = time.perf_counter()
    scaffolding += stubbed - built

    result = module.handler(scenario["event"], context)
    done = time.perf_counter()
    replay.assert_drained()

    status = result.get("statusCode") if isinstance(result, dict) and "statusCode" in result else None
    with open(result_path, "w", encoding="utf-8") as f:
        json.dump({
            "status": status,
            "import_ms": (imported - start) * 1e3,
            "clients_ms": (built - imported) * 1e3,
            "first_request_ms": (done - stubbed) * 1e3,
            "init_ms": (done - start) * 1e3 - (stubbed - built) * 1e3,
            "scaffolding_ms": scaffolding * 1e3,
            "dev_only_modules": sorted(m for m in DEV_ONLY if m in sys.modules),
            "loaded": sorted(m for m in NOTABLE if m in sys.modules),
        }, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
    sys.stdout.flush()
    # No interpreter shutdown: a Lambda container is frozen after its response (bench.cold).
    import os

    os._exit(0)
