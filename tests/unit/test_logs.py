"""authgate.logs: one JSON line per record, in the Powertools shape, every value redacted (contract 5.7)."""

from __future__ import annotations

import json

from authgate.logs import get_logger, set_correlation_id
from authgate.redaction import REDACTED
from tests.log_hygiene import LogCapture, SecretHarvest, leaks

JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl"


def test_a_record_has_the_standard_keys_then_its_extras() -> None:
    set_correlation_id("req-1")
    with LogCapture() as capture:
        get_logger().info("request", extra={"function": "token", "status": 200, "error_code": None})
    set_correlation_id(None)
    (line,) = capture.lines
    record = json.loads(line)
    assert list(record) == ["level", "location", "message", "timestamp", "service", "correlation_id",
                            "function", "status"]  # None values are left out
    assert (record["level"], record["message"], record["service"], record["correlation_id"]) == (
        "INFO", "request", "authgate", "req-1")
    assert record["location"].startswith("test_a_record_has_the_standard_keys_then_its_extras:")
    assert (record["function"], record["status"]) == ("token", 200)


def test_a_whole_record_is_redacted_message_extras_and_exception() -> None:
    with LogCapture() as capture:
        try:
            raise ValueError(f"boom refresh_token=R3FRESH {JWT}")
        except ValueError:
            get_logger().exception("failed with code=C0DE", extra={"client_secret": "S3CR3T",
                                                                    "internal": "Bearer B34RER"})
    (line,) = capture.lines
    record = json.loads(line)
    assert record["message"] == f"failed with code={REDACTED}"
    assert (record["client_secret"], record["internal"]) == (REDACTED, f"Bearer {REDACTED}")
    assert record["exception_name"] == "ValueError"
    assert record["stack_trace"]["value"] == f"boom refresh_token={REDACTED} {REDACTED}"
    for secret in ("R3FRESH", JWT, "C0DE", "S3CR3T", "B34RER"):
        assert secret not in line


def test_harvest_and_leaks_find_secrets_of_an_exchange() -> None:
    harvest = SecretHarvest(initial=())
    harvest.headers([("Authorization", "Basic ZGVtby13ZWI6ZGVtby13ZWItc2VjcmV0"),
                     ("Location", "http://127.0.0.1:8765/callback?code=THE-CODE-VALUE&state=s")])
    harvest.body("grant_type=refresh_token&refresh_token=REFRESH-VALUE", "application/x-www-form-urlencoded")
    harvest.body('{"access_token": "ACCESS-VALUE", "token_type": "Bearer"}', "application/json")
    assert harvest.secrets == {"Basic ZGVtby13ZWI6ZGVtby13ZWItc2VjcmV0", "ZGVtby13ZWI6ZGVtby13ZWItc2VjcmV0",
                               "demo-web-secret", "THE-CODE-VALUE", "REFRESH-VALUE", "ACCESS-VALUE"}
    assert leaks(['{"message": "request", "path": "/oauth/token"}'], harvest.secrets) == []
    assert leaks(['{"message": "x THE-CODE-VALUE"}'], harvest.secrets) == [
        ("THE-CODE-VALUE", '{"message": "x THE-CODE-VALUE"}')]


def test_records_do_not_reach_the_root_loggers_handlers() -> None:
    """Lambda's Python runtime puts a handler on the root logger: a record that propagated there
    would reach CloudWatch twice, once in the runtime's text format."""
    import logging

    class Runtime(logging.Handler):
        def __init__(self) -> None:
            super().__init__()
            self.records: list[logging.LogRecord] = []

        def emit(self, record: logging.LogRecord) -> None:
            self.records.append(record)

    runtime = Runtime()
    logging.getLogger().addHandler(runtime)
    try:
        with LogCapture() as capture:
            get_logger().warning("request failed", extra={"error_code": "internal_error"})
    finally:
        logging.getLogger().removeHandler(runtime)
    assert [json.loads(line)["message"] for line in capture.lines] == ["request failed"]
    assert runtime.records == []


def test_the_access_line_is_the_line_a_record_gives() -> None:
    """logs.info_line writes the request line without a LogRecord: the same JSON, key for key."""
    import io

    from authgate.logs import _HANDLER, info_line

    fields = {"function": "charges", "method": "GET", "path": "/charges/ch_1?access_token=T0K3N", "status": 200,
              "error_code": None, "duration_ms": 0.5}
    stream = io.StringIO()
    handler = _HANDLER[0]
    previous = handler.setStream(stream)
    set_correlation_id("req-9")
    try:
        info_line("request", fields)
        get_logger().info("request", extra=fields)
    finally:
        set_correlation_id(None)
        handler.setStream(previous)
    fast, slow = (json.loads(line) for line in stream.getvalue().splitlines())
    assert list(fast) == list(slow)
    assert {k: v for k, v in fast.items() if k not in ("location", "timestamp")} == {
        k: v for k, v in slow.items() if k not in ("location", "timestamp")}
    assert fast["location"].startswith("test_the_access_line_is_the_line_a_record_gives:")
    assert fast["path"] == f"/charges/ch_1?access_token={REDACTED}" and "error_code" not in fast
    assert fast["timestamp"][:16] == slow["timestamp"][:16]


def test_the_access_line_reaches_any_other_handler_as_a_record() -> None:
    from authgate.logs import info_line

    with LogCapture() as capture:
        info_line("request", {"function": "token", "status": 200})
    (line,) = capture.lines
    record = json.loads(line)
    assert (record["message"], record["function"], record["status"]) == ("request", "token", 200)
    assert record["location"].startswith("test_the_access_line_reaches_any_other_handler_as_a_record:")
