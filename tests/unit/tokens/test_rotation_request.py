"""tokens.rotation_request: the console's request to the rotation function, and every way it can go unanswered.

Lambda's own answers are given by botocore's Stubber (a refusal, a throttle, a function error) and by a hook that
fails the request before it is sent (a timeout): what moto cannot make Lambda do. The request a real function answers
is in tests/functional/test_console_keys.py (moto's Invoke, answered by functions/rotate_keys in-process) and
tests/deploy/test_emulated_deploy.py (a deployed KMS stack).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ReadTimeoutError
from botocore.response import StreamingBody
from botocore.stub import Stubber

from authgate import aws, caches
from authgate.stores.signing_keys import KeyRecord
from authgate.tokens.rotation import RotationReport
from authgate.tokens.rotation_request import REQUEST, RotationUnanswered, ask, is_request

ARN = "arn:aws:lambda:us-east-1:123456789012:function:authgate-prod-RotateKeysFunction-Ab1"
SENT = {"FunctionName": ARN, "InvocationType": "RequestResponse", "Payload": b'{"authgate": "rotate-now"}'}
REPORT = {"promoted": "k2", "demoted": "k1", "created": ["k3"], "retired": [],
          "promotions": [{"alg": "RS256", "promoted": "k2", "demoted": "k1"}],
          "keys": [{"kid": "k3", "state": "next", "alg": "RS256", "backend": "kms", "activates_at": 1420,
                    "retires_at": 0},
                   {"kid": "k2", "state": "current", "alg": "RS256", "backend": "kms", "activates_at": 1000,
                    "retires_at": 0},
                   {"kid": "k1", "state": "previous", "alg": "RS256", "backend": "kms", "activates_at": 400,
                    "retires_at": 2200}]}


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stubber]:
    monkeypatch.setenv("AUTHGATE_ROTATE_KEYS_FUNCTION", ARN)
    caches.reset()
    with Stubber(aws.lambda_()) as stubber:
        yield stubber
        stubber.assert_no_pending_responses()


def body(value: Any) -> StreamingBody:
    raw = value if isinstance(value, bytes) else json.dumps(value).encode()
    return StreamingBody(io.BytesIO(raw), len(raw))


def unanswered() -> str:
    with pytest.raises(RotationUnanswered) as caught:
        ask()
    return str(caught.value)


def test_the_request_is_exactly_the_documented_payload() -> None:
    assert REQUEST == {"authgate": "rotate-now"} and is_request({"authgate": "rotate-now"})
    for other in ({"authgate": "rotate-now", "actor": "mallory"}, {"authgate": "rotate"}, {}, None, "rotate-now",
                  {"source": "aws.events", "detail-type": "Scheduled Event", "detail": {}}):
        assert not is_request(other)


def test_the_functions_report_comes_back_as_a_rotation_report(stub: Stubber) -> None:
    stub.add_response("invoke", {"StatusCode": 200, "Payload": body(REPORT)}, SENT)
    report = ask()
    assert report == RotationReport(
        promoted="k2", demoted="k1", created=["k3"], retired=[], promotions=REPORT["promotions"],
        keys=[KeyRecord(kid=k["kid"], state=k["state"], alg="RS256", backend="kms", public_jwk="", created_at=0,
                        activates_at=k["activates_at"], retires_at=k["retires_at"]) for k in REPORT["keys"]])
    assert report.as_dict() == REPORT


@pytest.mark.parametrize(("code", "status"), [
    ("AccessDeniedException", 403), ("TooManyRequestsException", 429), ("ResourceNotFoundException", 404),
    ("ServiceException", 500),
])
def test_an_invoke_lambda_refuses_is_unanswered_and_says_why(stub: Stubber, code: str, status: int) -> None:
    stub.add_client_error("invoke", service_error_code=code, http_status_code=status, expected_params=SENT)
    assert unanswered() == f"Invoke {ARN}: {code}"


def test_a_function_error_is_unanswered_naming_its_type_and_never_its_message(stub: Stubber) -> None:
    stub.add_response("invoke", {"StatusCode": 200, "FunctionError": "Unhandled", "Payload": body(
        {"errorMessage": "Task timed out after 60.00 seconds", "errorType": "Sandbox.Timedout"})}, SENT)
    assert unanswered() == f"{ARN} failed (Unhandled): Sandbox.Timedout"
    stub.add_response("invoke", {"StatusCode": 200, "FunctionError": "Unhandled", "Payload": body(b"not json")}, SENT)
    assert unanswered() == f"{ARN} failed (Unhandled): no error document"


def test_an_answer_that_is_no_report_is_unanswered(stub: Stubber) -> None:
    stub.add_response("invoke", {"StatusCode": 200, "Payload": body("done")}, SENT)
    assert unanswered() == f"{ARN} answered no rotation report: TypeError"
    stub.add_response("invoke", {"StatusCode": 200, "Payload": body({"promoted": None})}, SENT)
    assert unanswered() == f"{ARN} answered no rotation report: KeyError"


def test_an_invoke_that_times_out_is_unanswered_and_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTHGATE_ROTATE_KEYS_FUNCTION", ARN)
    caches.reset()
    client = aws.lambda_()
    sent: list[str] = []

    def times_out(request: Any, **kwargs: Any) -> None:
        sent.append(request.url)
        raise ReadTimeoutError(endpoint_url=request.url)

    client.meta.events.register("before-send.lambda.Invoke", times_out)
    assert unanswered() == f"Invoke {ARN}: ReadTimeoutError"
    # One attempt: a retried Invoke would run a second step nobody asked for.
    assert len(sent) == 1 and sent[0].endswith(f"/functions/{ARN.replace(':', '%3A')}/invocations")
