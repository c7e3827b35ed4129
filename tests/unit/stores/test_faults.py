"""stores.faults: the one classifier of "not now, retry later" at the store edge."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError, ReadTimeoutError

from authgate.stores.exceptions import StorageUnavailable, StoreError
from authgate.stores.faults import (
    aws_faults,
    cancellation_codes,
    condition_failed,
    is_unavailable,
)


def client_error(code: str, reasons: list[str] | None = None) -> ClientError:
    response: dict[str, Any] = {"Error": {"Code": code, "Message": "m"}}
    if reasons is not None:
        response["CancellationReasons"] = [{"Code": r} for r in reasons]
    return ClientError(response, "TransactWriteItems")  # type: ignore[arg-type]


class Refused(StoreError):
    pass


@pytest.mark.parametrize(("exc", "unavailable"), [
    (client_error("ProvisionedThroughputExceededException"), True),
    (client_error("ThrottlingException"), True),
    (client_error("InternalServerError"), True),
    (client_error("ConditionalCheckFailedException"), False),
    (client_error("ValidationException"), False),
    (client_error("TransactionCanceledException", ["None", "ThrottlingError"]), True),
    (client_error("TransactionCanceledException", ["ConditionalCheckFailed", "None"]), False),
    (client_error("TransactionCanceledException", ["TransactionConflict"]), False),
    (EndpointConnectionError(endpoint_url="https://dynamodb"), True),
    (ReadTimeoutError(endpoint_url="https://dynamodb"), True),
    (ValueError("not AWS"), False),
])
def test_what_counts_as_not_now(exc: BaseException, unavailable: bool) -> None:
    assert is_unavailable(exc) is unavailable


def test_cancellation_codes_keep_item_order() -> None:
    assert cancellation_codes({"CancellationReasons": [{"Code": "ConditionalCheckFailed"}, {}]}) == [
        "ConditionalCheckFailed", "None"]
    assert cancellation_codes({}) == []


def test_an_outage_becomes_storage_unavailable_naming_the_operation() -> None:
    with pytest.raises(StorageUnavailable) as info, aws_faults("charges.create"):
        raise client_error("ThrottlingException")
    assert (info.value.operation, info.value.reason, type(info.value.__cause__)) == (
        "charges.create", "ThrottlingException", ClientError)
    with pytest.raises(StorageUnavailable) as timeout, aws_faults("charges.get"):
        raise ReadTimeoutError(endpoint_url="https://dynamodb")
    assert timeout.value.reason == "ReadTimeoutError"


def test_a_failed_condition_is_the_stores_own_refusal_when_it_names_one() -> None:
    failed = client_error("ConditionalCheckFailedException")
    assert condition_failed(failed) and not condition_failed(client_error("ThrottlingException"))
    with pytest.raises(Refused), aws_faults("x", refused=Refused):
        raise failed
    with pytest.raises(ClientError), aws_faults("x"):  # no refusal given: the store decides
        raise failed


def test_other_errors_propagate_untouched() -> None:
    with pytest.raises(ClientError) as info, aws_faults("x", refused=Refused):
        raise client_error("ValidationException")
    assert info.value.response["Error"]["Code"] == "ValidationException"
