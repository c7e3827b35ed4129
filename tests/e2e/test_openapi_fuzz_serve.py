"""Schemathesis against GET /openapi.json through its own `authgate serve` (failed-auth and rate
counters it trips stay out of the shared e2e stack).

Every generated request must get a documented status, content type, headers and body schema,
no 5xx, and every failure must pass authgate_cli.check.read_error with no defect. Bounded:
a few examples per operation, no deadline (the suite runs on 2 shared cores).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from authgate_cli.openapi.build import DOCUMENT_PATH
from tests.contract import check_response, is_browser_route
from tests.e2e.conftest import LocalStack, start_stack, stop_stack

pytestmark = pytest.mark.e2e
EXAMPLES = 12
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_headers_conformance, response_schema_conformance]


@pytest.fixture(scope="module")
def fuzz_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    stack = start_stack(Path(tmp_path_factory.mktemp("authgate-fuzz")))
    try:
        yield stack
    finally:
        stop_stack(stack)


@pytest.fixture(scope="module")
def bearer(fuzz_stack: LocalStack) -> str:
    r = requests.post(f"{fuzz_stack.base_url}/oauth/token", auth=("demo-service", "demo-service-secret"),
                      data={"grant_type": "client_credentials", "scope": "charges:read charges:write"}, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()["access_token"]


@pytest.fixture(scope="module")
def api_schema(fuzz_stack: LocalStack):  # type: ignore[no-untyped-def]
    return schemathesis.openapi.from_url(f"{fuzz_stack.base_url}/openapi.json")


# The committed document's operations (the same the server serves: test_openapi checks that).
OPERATIONS = [(method.upper(), path) for path, item in json.loads(DOCUMENT_PATH.read_text("utf-8"))["paths"].items()
              for method in item]


@pytest.mark.parametrize("method, path", OPERATIONS)
def test_every_operation_answers_per_its_documentation(api_schema, bearer: str, method: str, path: str) -> None:  # type: ignore[no-untyped-def]
    operation = api_schema[path][method]
    # Schema-valid and schema-violating requests alike (schemathesis' positive and negative modes).
    strategy = st.one_of(operation.as_strategy(GenerationMode.POSITIVE), operation.as_strategy(GenerationMode.NEGATIVE))

    @given(case=strategy)
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def run(case) -> None:  # type: ignore[no-untyped-def]
        headers = {}
        if path.startswith("/charges"):
            # Mostly with valid credentials, so the body and parameter rules are what is fuzzed;
            # paced under the demo key's usage plan (10 rps) so throttling is not all we see.
            headers = {"x-api-key": "demo-api-key", "Authorization": f"Bearer {bearer}"}
            time.sleep(0.1)
        response = case.call(headers=headers, timeout=30, allow_redirects=False)
        # schemathesis' response keeps every header's values as a list.
        pairs = [(name, value) for name, values in response.headers.items()
                 for value in (values if isinstance(values, list) else [values])]
        check_response(response.status_code, pairs, response.content, api=not is_browser_route(path))
        case.validate_response(response, checks=CHECKS)

    run()
