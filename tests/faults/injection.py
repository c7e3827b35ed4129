"""DynamoDB faults at the SDK edge: a botocore `before-call` hook on the shared client raises at
the N-th call, as an exhausted retry would (no project code is mocked or patched)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from botocore.exceptions import ClientError, ReadTimeoutError


def client_error(code: str, operation: str = "UpdateItem") -> ClientError:
    """The error botocore raises when DynamoDB answers `operation` with `code`."""
    return ClientError({"Error": {"Code": code, "Message": "injected"}}, operation)


ERRORS: dict[str, Callable[[str], BaseException]] = {
    "ProvisionedThroughputExceededException": lambda op: client_error("ProvisionedThroughputExceededException", op),
    "ThrottlingException": lambda op: client_error("ThrottlingException", op),
    "InternalServerError": lambda op: client_error("InternalServerError", op),
    "ReadTimeoutError": lambda op: ReadTimeoutError(endpoint_url="https://dynamodb.us-east-1.amazonaws.com"),
}


class DynamoDBCalls:
    """The calls made so far as (operation, table); raises `error` at call index `at` once."""

    def __init__(self, at: int | None = None, error: str = "ThrottlingException") -> None:
        self.at, self.error = at, error
        self.calls: list[tuple[str, str]] = []
        self.injected: tuple[str, str] | None = None

    def __call__(self, model: Any, params: dict[str, Any], **_: Any) -> None:
        call = (model.name, _tables(params))
        self.calls.append(call)
        if self.at is not None and len(self.calls) - 1 == self.at:
            self.injected = call
            raise ERRORS[self.error](model.name)


def _tables(request: dict[str, Any]) -> str:
    """Table name(s) of a serialized DynamoDB request (before-call sees the wire body)."""
    try:
        body = json.loads(request.get("body") or b"{}")
    except ValueError:
        return "?"
    if "TableName" in body:
        return str(body["TableName"])
    if "RequestItems" in body:
        return ",".join(sorted(body["RequestItems"]))
    names = {next(iter(item.values())).get("TableName", "?") for item in body.get("TransactItems", [])}
    return ",".join(sorted(names)) or "?"


@contextmanager
def dynamodb_calls(at: int | None = None, error: str = "ThrottlingException") -> Iterator[DynamoDBCalls]:
    from authgate import aws

    recorder = DynamoDBCalls(at, error)
    events = aws.dynamodb().meta.events
    events.register("before-call.dynamodb", recorder, unique_id="faults-suite")
    try:
        yield recorder
    finally:
        events.unregister("before-call.dynamodb", unique_id="faults-suite")


class Outcomes:
    """What each (flow, failed call) left behind, across the error kinds injected at that call."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], set[str]] = {}

    def record(self, flow: str, call: tuple[str, str] | None, outcome: str) -> None:
        if call is not None:  # None: this run made fewer calls than the index (nothing injected)
            self.seen.setdefault((flow, f"{call[0]} {call[1]}"), set()).add(outcome)

    def table(self) -> list[str]:
        """One "FAULT | flow | step | outcomes" line per step (docs/operations.md quotes them)."""
        return [f"FAULT | {flow} | {step} | {'; '.join(sorted(found))}"
                for (flow, step), found in sorted(self.seen.items())]
