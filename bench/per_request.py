"""Per operation: DynamoDB calls, warm latency against moto, and CPU with AWS answered from memory.

All three are warm figures (a Lambda container that has served the function before: clients,
settings, keys, client and tenant caches filled). For each operation:
- calls: DynamoDB API calls of one request, counted with botocore `before-call` hooks;
- latency: wall time of `handler(event, context)` in this process against moto (atomic), p50/p99,
  so it includes moto's own work and is an upper bound on the code's share;
- CPU: `time.process_time()` of the same call with every AWS call answered by a Stubber from a
  recording of that request (no network, no moto, no response parsing), p50/p99.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from bench.dynamodb_calls import counting
from bench.operations import BENCH_LIMITS, Operation, build
from bench.recording import Replay, recording


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def _invoke(op: Operation, event: dict[str, Any]) -> dict[str, Any]:
    from authgate_cli.local.context import LambdaContext
    from authgate_cli.local.functions import load_handler

    result = load_handler(op.function)(event, LambdaContext(op.function))
    if result["statusCode"] != op.status:
        raise AssertionError(f"{op.name}: expected {op.status}, got {result['statusCode']}: {result['body'][:300]}")
    op.after(result)
    return result


def measure_operation(op: Operation, iterations: int) -> dict[str, Any]:
    for _ in range(3):  # warm: imports, clients, key/client/tenant caches
        _invoke(op, op.next_event())

    event = op.next_event()
    with counting() as calls:
        _invoke(op, event)

    wall: list[float] = []
    for _ in range(iterations):
        event = op.next_event()
        start = time.perf_counter()
        _invoke(op, event)
        wall.append((time.perf_counter() - start) * 1e3)

    event = op.next_event()
    with recording() as rec:
        _invoke(op, event)
    replay = Replay()
    cpu: list[float] = []
    for _ in range(iterations):
        event = op.next_event()  # outside the stubs: preparing an event may write to moto
        replay.queue(rec)
        replay.activate()
        try:
            start = time.process_time()
            _invoke(op, event)
            cpu.append((time.process_time() - start) * 1e3)
            replay.assert_drained()
        finally:
            replay.deactivate()
    return {
        "function": op.function,
        "dynamodb_calls": calls.total,
        "dynamodb_operations": calls.by_operation(),
        "budget": op.budget,
        "within_budget": None if op.budget is None else calls.total <= op.budget,
        "latency_ms": {"p50": percentile(wall, 50), "p99": percentile(wall, 99), "n": len(wall)},
        "cpu_ms": {"p50": percentile(cpu, 50), "p99": percentile(cpu, 99), "mean": statistics.fmean(cpu),
                   "n": len(cpu)},
    }


def measure(iterations: int) -> dict[str, dict[str, Any]]:
    """{operation name: figures} for every budgeted operation, on a fresh demo stack."""
    import os

    from authgate_cli.local import stack
    from authgate_cli.local.invoke import local_aws

    with local_aws():
        os.environ.update(BENCH_LIMITS)
        stack.reset_caches()
        return {op.name: measure_operation(op, iterations) for op in build()}
