"""Per operation: DynamoDB calls, warm latency against moto, and CPU with AWS answered from memory.

All three are warm figures (a Lambda container that has served the function before: clients,
settings, keys, client and tenant caches filled). For each operation:
- calls: DynamoDB API calls of one request, counted with botocore `before-call` hooks;
- latency: wall time of `handler(event, context)` in this process against moto (atomic), p50/p99,
  so it includes moto's own work and is an upper bound on the code's share;
- CPU: `time.process_time()` of the same call with every AWS call answered by a Stubber from a
  recording of that request (no network, no moto, no response parsing), p50/p99.
Only the handler call is timed: finding the handler, building the event and its Lambda context,
and checking the result happen outside the timed span. The reference stack (bench/reference)
serves the operations it implements under the same measurement, its CPU samples interleaved
with authgate's (one request of each in turn), so background load hits both alike.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.dynamodb_calls import counting
from bench.operations import BENCH_LIMITS, Operation, build, build_reference
from bench.recording import Recording, Replay, recording

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


@dataclass
class Served:
    """One operation served by one stack: its handler, its AWS clients (None: authgate's), samples."""

    op: Operation
    handler: Handler
    clients: dict[str, Any] | None = None
    calls: Any = None
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    _recording: Recording | None = None
    _replay: Replay | None = None

    def call(self, event: dict[str, Any]) -> dict[str, Any]:
        from authgate_cli.local.context import LambdaContext

        result = self.handler(event, LambdaContext(self.op.function))
        self.check(result)
        return result

    def check(self, result: dict[str, Any]) -> None:
        if result["statusCode"] != self.op.status:
            raise AssertionError(f"{self.op.name}: expected {self.op.status}, got {result['statusCode']}: "
                                 f"{result['body'][:300]}")
        self.op.after(result)

    def prepare(self, iterations: int) -> None:
        """Warm up, count one request's calls, time `iterations` requests against moto, record one."""
        from authgate_cli.local.context import LambdaContext

        for _ in range(3):  # warm: imports, clients, key/client/tenant caches
            self.call(self.op.next_event())
        event = self.op.next_event()  # preparing an event may write to moto: never inside a count
        with counting((self.clients or {}).get("dynamodb")) as calls:
            self.call(event)
        self.calls = calls
        for _ in range(iterations):
            event, context = self.op.next_event(), LambdaContext(self.op.function)
            start = time.perf_counter()
            result = self.handler(event, context)
            self.wall.append((time.perf_counter() - start) * 1e3)
            self.check(result)
        event = self.op.next_event()
        with recording(self.clients) as rec:
            self.call(event)
        self._recording, self._replay = rec, Replay(clients=self.clients)

    def sample_cpu(self) -> None:
        """One request with AWS answered from the recording; its process CPU time."""
        from authgate_cli.local.context import LambdaContext

        assert self._recording is not None and self._replay is not None
        event, context = self.op.next_event(), LambdaContext(self.op.function)  # outside the stubs
        self._replay.queue(self._recording)
        self._replay.activate()
        try:
            start = time.process_time()
            result = self.handler(event, context)
            self.cpu.append((time.process_time() - start) * 1e3)
            self.check(result)
            self._replay.assert_drained()
        finally:
            self._replay.deactivate()

    def figures(self) -> dict[str, Any]:
        return {
            "function": self.op.function,
            "dynamodb_calls": self.calls.total,
            "dynamodb_operations": self.calls.by_operation(),
            "budget": self.op.budget,
            "within_budget": None if self.op.budget is None else self.calls.total <= self.op.budget,
            "latency_ms": {"p50": percentile(self.wall, 50), "p99": percentile(self.wall, 99), "n": len(self.wall)},
            "cpu_ms": {"p50": percentile(self.cpu, 50), "p99": percentile(self.cpu, 99),
                       "mean": statistics.fmean(self.cpu), "n": len(self.cpu)},
        }


def measure(iterations: int, *, versus_reference_only: bool = False) -> tuple[dict[str, dict[str, Any]],
                                                                           dict[str, dict[str, Any]]]:
    """({operation: figures} for every budgeted operation, {operation: figures} of the reference
    stack for the operations it implements), on a fresh demo stack; with `versus_reference_only`, only
    the operations the reference stack implements (`python -m bench warm_cpu`)."""
    import os

    from authgate import clock
    from authgate_cli.local import stack
    from authgate_cli.local.functions import load_handler
    from authgate_cli.local.invoke import local_aws

    with local_aws():
        os.environ.update(BENCH_LIMITS)
        stack.reset_caches()
        ours = {op.name: Served(op, load_handler(op.function)) for op in build()}
        theirs = {op.name: Served(op, handler, clients) for op, handler, clients in build_reference()}
        if versus_reference_only:
            ours = {name: served for name, served in ours.items() if name in theirs}
        # One operation at a time, on authgate's clock stopped at the operation's start: warm
        # caches (signer, keys, clients, tenants) stay warm from the recording to the last
        # sample, however slow moto is, so every sample makes exactly the recorded calls.
        for name, served in ours.items():
            pair = [served] + ([theirs[name]] if name in theirs else [])
            with clock.using(clock.ManualClock(time.time())):
                for one in pair:
                    one.prepare(iterations)
                for _ in range(iterations):
                    for one in pair:
                        one.sample_cpu()
    return ({name: s.figures() for name, s in ours.items()}, {name: s.figures() for name, s in theirs.items()})
