"""Shared fixtures: moto's AWS made atomic, tables built from template.yaml, handlers in-process.

Nothing of the project's own code is mocked: handlers run for real against moto's DynamoDB,
Secrets Manager and KMS.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

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


def reset_caches() -> None:
    """Forget every process-wide cache (settings, AWS clients, dependencies)."""
    from authgate import aws, settings

    settings.reset()
    aws.reset()
    try:
        from authgate import dependencies
    except ImportError:
        return
    dependencies.reset()


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """moto's in-memory AWS, atomic, with every table of template.yaml created."""
    from moto import mock_aws

    from authgate_cli.local import template
    from authgate_cli.local.atomic import make_dynamodb_atomic

    make_dynamodb_atomic()
    for name, value in template.table_environment().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AUTHGATE_ISSUER", "http://127.0.0.1:3000")
    monkeypatch.setenv("AUTHGATE_STAGE", "local")
    with mock_aws():
        reset_caches()
        import boto3

        client = boto3.client("dynamodb", region_name="us-east-1")
        for definition in template.table_definitions().values():
            client.create_table(**definition["create"])
        yield
    reset_caches()


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
