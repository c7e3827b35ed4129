"""Shared fixtures: moto's AWS made atomic, tables built from template.yaml, handlers in-process.

Nothing of the project's own code is mocked: handlers run for real against moto's DynamoDB,
Secrets Manager and KMS.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from authgate.clock import ManualClock
from tests import aws_state
from tests.demo import ISSUER, Demo
from tests.functional.authorize_support import Browser
from tests.functional.token_support import TokenClient

# Every AWS call a function makes is recorded and checked against its IAM role (tests/deploy/iam).
pytest_plugins = ["tests.deploy.iam.plugin"]

# Fake credentials before anything can build a client: no test may reach real AWS.
os.environ.update({
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_REGION": "us-east-1",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_METRICS_NAMESPACE": "authgate",
    "POWERTOOLS_SERVICE_NAME": "authgate",
})
os.environ.pop("AUTHGATE_AWS_ENDPOINT_URL", None)


def pytest_configure(config: pytest.Config) -> None:
    """botocore's models parsed, and moto's routes built, once per test process (tests/aws_state.py says why)."""
    aws_state.share_botocore_models()
    aws_state.share_moto_routes()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Slow by what they are, before `-m "not slow"` selects (make test-fast): whatever goes through a
    real `authgate serve`, Chromium or Node (tests/e2e, the e2e and browser markers), and every
    hypothesis search. Other slow tests carry the marker themselves (CONTRIBUTING.md, "Tests")."""
    from hypothesis import is_hypothesis_test

    e2e = Path(__file__).with_name("e2e")
    for item in items:
        if item.get_closest_marker("slow"):
            continue
        if (e2e in item.path.parents or item.get_closest_marker("e2e") or item.get_closest_marker("browser")
                or is_hypothesis_test(getattr(item, "obj", None))):
            item.add_marker(pytest.mark.slow)


# Where the `clock` fixture stops time (an instant in 2025).
START = 1_750_000_000


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """moto's in-memory AWS, atomic, with every table of template.yaml created: a fresh one for each test."""
    from moto import mock_aws

    from authgate import caches
    from authgate_cli.local import template
    from authgate_cli.local.atomic import make_dynamodb_atomic
    from authgate_cli.local.lambda_invoke import answer_in_process

    make_dynamodb_atomic()
    answer_in_process()
    for name, value in {**template.table_environment(), **template.queue_environment()}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AUTHGATE_ISSUER", ISSUER)
    monkeypatch.setenv("AUTHGATE_STAGE", "local")
    # One session secret for every test: what is sealed under it (the demo seed's one-time-code secret)
    # opens again after any cache reset.
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "test-session-secret-0123456789abcdef")
    with mock_aws():
        caches.reset()
        aws_state.create_tables()
        yield
    caches.reset()


@pytest.fixture
def demo(aws: None) -> Demo:
    """The demo stack in moto: the demo seed (tenants, clients, users, invoices), signing keys and the console's
    client.

    Seeded for real once per process and clock, then restored (tests/aws_state.py). The Demo it
    returns mints real access tokens and builds the charges function's events."""
    from authgate_cli.local.bootstrap import ensure_deployed
    from authgate_cli.local.seed import load_seed

    def seed() -> None:
        load_seed()
        ensure_deployed()

    aws_state.seeded("demo", seed)
    return Demo()


@pytest.fixture
def clock() -> Iterator[ManualClock]:
    """The runtime's one clock (authgate.clock), stopped at START: `clock.advance(seconds)` moves it.

    Tokens, keys, codes, sessions, charges and caches all read it, so a test crosses an expiry
    or a rotation without sleeping."""
    from authgate.clock import using

    manual = ManualClock(START)
    with using(manual):
        yield manual


@pytest.fixture(autouse=True)
def log_hygiene() -> Iterator[Any]:
    """Every test: no log line of the Powertools logger holds a secret the test used or received
    (contract 5.7). `invoke` harvests secrets from each event and result; a test may add more."""
    from tests.log_hygiene import LogCapture, SecretHarvest, leaks

    harvest = SecretHarvest()
    with LogCapture() as capture:
        yield harvest
    found = leaks(capture.lines, harvest.secrets)
    assert not found, f"secrets reached the log: {found}"


@pytest.fixture
def log_lines() -> Iterator[Callable[[], list[dict[str, Any]]]]:
    """The service logger's lines while the test runs, parsed: `log_lines()` -> [record, ...]."""
    from tests.log_hygiene import LogCapture

    with LogCapture() as capture:
        yield lambda: [json.loads(line) for line in capture.lines]


@pytest.fixture
def audit_stage(aws: None, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A stage's audit trail in this test's moto (tests/audit_support.py), named in the environment the
    audit function sees (AuditFunction's in template.yaml)."""
    from authgate import caches
    from tests.audit_support import create_audit_stage

    stage = create_audit_stage()
    for name, value in stage.environment().items():
        monkeypatch.setenv(name, value)
    caches.reset()
    return stage


@pytest.fixture
def audit_events() -> Iterator[Callable[[], list[dict[str, Any]]]]:
    """The audit events recorded while the test runs (authgate.audit), read back from the lines the
    service's logger wrote, exactly as the audit trail reads them: `audit_events()` -> [event, ...]."""
    from authgate.audit import event_of
    from tests.log_hygiene import LogCapture

    with LogCapture() as capture:
        yield lambda: [event for line in capture.lines if (event := event_of(line)) is not None]


@pytest.fixture
def invoke(log_hygiene: Any) -> Callable[[str, dict[str, Any]], dict[str, Any]]:
    """Run one function's handler on one event, in-process; every error result is checked
    against the error contract (tests/contract.py) and a defect fails the test."""
    from authgate_cli.local.functions import load_handler
    from tests.contract import check_proxy_result, is_browser_route

    def run(function: str, event: dict[str, Any]) -> dict[str, Any]:
        result = load_handler(function)(event, None)
        if isinstance(result, dict) and "statusCode" in result:
            log_hygiene.proxy_exchange(event, result)
            check_proxy_result(result, api=not is_browser_route(str(event.get("path") or "")))
        return result

    return run


Invoke = Callable[[str, dict[str, Any]], dict[str, Any]]


@pytest.fixture
def keys(aws: None, clock: ManualClock) -> None:
    """A current signing key and the demo-service client, at the clock's time (no other seed)."""
    from authgate.tokens.rotation import ensure_keys
    from tests.bearer_requests import seed_client

    def seed() -> None:
        ensure_keys()
        seed_client()

    aws_state.seeded("keys", seed)


@pytest.fixture
def tokens(demo: Demo, invoke: Invoke) -> TokenClient:
    """The token function (/oauth/token, /oauth/revoke, /oauth/introspect) on the demo stack."""
    return TokenClient(invoke)


@pytest.fixture
def browser(demo: Demo, invoke: Invoke, monkeypatch: pytest.MonkeyPatch) -> Browser:
    """A Browser on the authorize function, on the demo stack, with a session secret set."""
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "test-session-secret-0123456789abcdef")
    caches.reset()
    return Browser(invoke)
