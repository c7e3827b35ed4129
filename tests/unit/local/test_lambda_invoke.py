"""authgate_cli.local.lambda_invoke: moto's Lambda Invoke answered by a local stack function's handler in-process.

The jwks function stands for any function of the template (it reads the published keys' item: none here, so it
answers an empty key set); the rotation function's own answer to the console is in tests/functional. A function moto
itself knows (an emulated deployment's) is left to moto: tests/deploy/test_emulated_deploy.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import boto3
import pytest

from authgate_cli.local.lambda_invoke import answer_in_process, local_function


@pytest.fixture
def lambdas(aws: None) -> Iterator[object]:
    answer_in_process()
    answer_in_process()  # idempotent
    yield boto3.client("lambda", region_name="us-east-1")


def test_a_function_is_named_by_its_logical_id_or_an_arn_ending_in_it() -> None:
    assert local_function("RotateKeysFunction") == "RotateKeysFunction"
    assert local_function("arn:aws:lambda:us-east-1:123456789012:function:RotateKeysFunction") == "RotateKeysFunction"
    for other in ("rotate_keys", "NoSuchFunction", "arn:aws:lambda:us-east-1:123456789012:function:Other",
                  "RotateKeysFunction:live"):
        assert local_function(other) is None


def test_the_handler_answers_as_lambda_does(lambdas: object) -> None:
    answer = lambdas.invoke(FunctionName="JwksFunction", Payload=json.dumps({  # type: ignore[attr-defined]
        "httpMethod": "GET", "path": "/.well-known/jwks.json", "resource": "/.well-known/jwks.json",
        "headers": {"Host": "127.0.0.1:3000"}, "multiValueHeaders": {}, "requestContext": {"requestId": "r1"}}))
    assert (answer["StatusCode"], "FunctionError" in answer) == (200, False)
    result = json.loads(answer["Payload"].read())
    assert (result["statusCode"], json.loads(result["body"])) == (200, {"keys": []})


def test_a_handler_that_raises_is_a_function_error_naming_its_type(lambdas: object) -> None:
    # The rotation function without its keys' table fails inside its handler.
    boto3.client("dynamodb", region_name="us-east-1").delete_table(TableName="KeysTable")
    answer = lambdas.invoke(FunctionName="RotateKeysFunction",  # type: ignore[attr-defined]
                            Payload=json.dumps({"authgate": "rotate-now"}))
    assert (answer["StatusCode"], answer["FunctionError"]) == (200, "Unhandled")
    error = json.loads(answer["Payload"].read())
    assert (set(error), error["errorType"]) == ({"errorMessage", "errorType"}, "ResourceNotFoundException")


def test_a_function_neither_moto_nor_the_template_knows_is_not_found(lambdas: object) -> None:
    with pytest.raises(lambdas.exceptions.ResourceNotFoundException):  # type: ignore[attr-defined]
        lambdas.invoke(FunctionName="NoSuchFunction", Payload=b"{}")  # type: ignore[attr-defined]
