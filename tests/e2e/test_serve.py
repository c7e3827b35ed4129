"""`authgate serve` over real HTTP: template routes, gateway responses, correlation, start/stop."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
from pathlib import Path

import pytest
import requests

from tests.e2e.conftest import LocalStack, authgate_command, start_stack, stop_stack

pytestmark = pytest.mark.e2e


def headers_of(response: requests.Response) -> dict[str, str]:
    """Response headers without the ones that vary per run (Date)."""
    return {k.lower(): v for k, v in response.headers.items() if k.lower() != "date"}


def test_jwks_is_served(base_url: str) -> None:
    response = requests.get(f"{base_url}/.well-known/jwks.json", timeout=10)
    assert response.status_code == 200
    request_id = response.headers["x-request-id"]
    assert headers_of(response) == {
        "content-type": "application/json",
        "cache-control": "public, max-age=300",
        "vary": "Origin",  # cacheable and CORS-enabled: caches key it by Origin
        "x-request-id": request_id,
        "x-amzn-requestid": request_id,
        "x-amz-apigw-id": response.headers["x-amz-apigw-id"],
        "content-length": str(len(response.content)),
    }
    keys = response.json()["keys"]
    assert keys, "the local stack publishes at least one signing key"
    for key in keys:
        assert {"kty", "kid", "alg", "use"} <= set(key) and key["use"] == "sig"
        assert not {"d", "p", "q", "dp", "dq", "qi"} & set(key), "no private members"


def test_metadata_is_served_with_the_local_issuer(base_url: str) -> None:
    response = requests.get(f"{base_url}/.well-known/oauth-authorization-server", timeout=10)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["issuer"] == base_url
    assert body["token_endpoint"] == f"{base_url}/oauth/token"
    assert body["jwks_uri"] == f"{base_url}/.well-known/jwks.json"


@pytest.mark.parametrize("method, path", [
    ("GET", "/no/such/route"),
    ("POST", "/no/such/route"),
    ("GET", "/"),
    ("DELETE", "/nothing-here"),
])
def test_unknown_route_is_a_problem_never_html(base_url: str, method: str, path: str) -> None:
    response = requests.request(method, f"{base_url}{path}", headers={"Accept": "text/html"}, timeout=10)
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")
    assert "<html" not in response.text.lower()
    body = response.json()
    assert body["status"] == 404 and body["code"] == "not_found"
    assert body["traceId"] == response.headers["x-request-id"]


def test_http_level_errors_are_problems_never_html(base_url: str) -> None:
    """A method API Gateway does not know matches no route: MISSING_AUTHENTICATION_TOKEN, problem+json."""
    response = requests.request("BREW", f"{base_url}/", timeout=10)
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == "not_found"
    assert "allow" not in response.headers


def test_charges_without_api_key_is_the_invalid_api_key_gateway_response(base_url: str) -> None:
    response = requests.get(f"{base_url}/charges", timeout=10)
    assert response.status_code == 403
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["status"] == 403 and body["code"] == "invalid_api_key"
    wrong = requests.get(f"{base_url}/charges", headers={"x-api-key": "not-a-key"}, timeout=10)
    assert (wrong.status_code, wrong.json()["code"]) == (403, "invalid_api_key")


def test_charges_with_the_demo_api_key_reaches_the_function(base_url: str) -> None:
    """With a valid key the gateway lets the request through: the function's bearer guard answers."""
    response = requests.get(f"{base_url}/charges", headers={"x-api-key": "demo-api-key"}, timeout=10)
    assert response.status_code != 403 or response.json()["code"] != "invalid_api_key"


def test_request_id_is_echoed_and_correlation_headers_kept(base_url: str) -> None:
    traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    response = requests.get(f"{base_url}/no/such/route", timeout=10, headers={
        "x-request-id": "e2e-req-42", "x-correlation-id": "corr-7", "traceparent": traceparent})
    assert response.headers["x-request-id"] == "e2e-req-42"
    assert response.headers["x-correlation-id"] == "corr-7"
    assert response.headers["traceparent"] == traceparent
    assert response.json()["traceId"] == "e2e-req-42"


def test_each_request_is_one_structured_log_line_without_secrets(local_stack: LocalStack) -> None:
    requests.get(f"{local_stack.base_url}/no/such/route?code=SECRET-CODE", timeout=10,
                 headers={"x-request-id": "log-line-1", "Authorization": "Bearer SECRET-TOKEN"})
    lines = [json.loads(line) for line in local_stack.log(2000).splitlines()
             if line.startswith("{") and '"authgate-emulator"' in line]
    mine = [line for line in lines if line["request_id"] == "log-line-1"]
    assert len(mine) == 1
    assert {k: mine[0][k] for k in ("method", "path", "status")} == {
        "method": "GET", "path": "/no/such/route", "status": 404}
    assert isinstance(mine[0]["duration_ms"], float)
    assert "SECRET-CODE" not in local_stack.log(2000) and "SECRET-TOKEN" not in local_stack.log(2000)


def test_state_file_points_admin_commands_at_this_stack(local_stack: LocalStack) -> None:
    state = json.loads(local_stack.state_file.read_text())
    assert state["base_url"] == local_stack.base_url
    assert state["env"]["AUTHGATE_ISSUER"] == local_stack.base_url
    assert state["env"]["AUTHGATE_CLIENTS_TABLE"] == "ClientsTable"
    assert "AUTHGATE_SESSION_SECRET" not in state["env"]
    assert requests.get(state["aws_endpoint"] + "/moto-api/", timeout=10).status_code == 200


def test_busy_port_says_so_and_exits_non_zero(local_stack: LocalStack) -> None:
    result = subprocess.run([*authgate_command(), "serve", "--port", str(local_stack.port)],
                            capture_output=True, text=True, timeout=60, env=local_stack.env(), check=False)
    assert result.returncode != 0
    assert f"port {local_stack.port} is already in use" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_seeded_api_key_on_a_plan_the_template_lacks_stops_serve_in_one_line(tmp_path: Path) -> None:
    """Refused at start, not a 500 and a traceback on the key's first request."""
    seed = tmp_path / "seed.json"
    seed.write_text('{"api_keys": [{"value": "k", "usage_plan": "standard"}]}')
    env = {**os.environ, "AUTHGATE_STATE_DIR": str(tmp_path / "state")}
    result = subprocess.run([*authgate_command(), "serve", "--port", "0", "--callback-port", "off", "--seed", str(seed)],
                            capture_output=True, text=True, timeout=60, env=env, check=False)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"authgate serve: bad seed file: {seed}: api_keys: usage_plan 'standard' is not a usage "
                             "plan of template.yaml (PremiumUsagePlan, StandardUsagePlan)\n")


def test_sigint_stops_cleanly_and_removes_the_state_file(tmp_path: Path) -> None:
    stack = start_stack(tmp_path)
    try:
        assert stack.state_file.exists()
        stack.process.send_signal(signal.SIGINT)
        assert stack.process.wait(timeout=20) == 0
    finally:
        stop_stack(stack)
    assert not stack.state_file.exists()
    assert "authgate serve: stopped" in stack.log()
    with socket.socket() as sock:  # nothing listens on the port any more (TIME_WAIT aside)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", stack.port))


def test_external_dynamodb_endpoint_holds_the_tables_and_data(tmp_path: Path) -> None:
    """--dynamodb-endpoint: tables, keys and seed go to that server; the API works on top of it."""
    import boto3
    from moto.server import ThreadedMotoServer

    external = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    external.start()
    host, port = external.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    try:
        stack = start_stack(tmp_path, "--dynamodb-endpoint", endpoint)
        try:
            response = requests.get(f"{stack.base_url}/.well-known/jwks.json", timeout=10)
            assert response.status_code == 200 and response.json()["keys"]
            client = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                                  aws_access_key_id="testing", aws_secret_access_key="testing")
            assert "ClientsTable" in client.list_tables()["TableNames"]
            seeded = client.get_item(TableName="ClientsTable", Key={"client_id": {"S": "demo-service"}})
            assert seeded["Item"]["tenant_id"] == {"S": "demo"}
            assert client.scan(TableName="KeysTable", Select="COUNT")["Count"] >= 1
        finally:
            stop_stack(stack)
    finally:
        external.stop()
