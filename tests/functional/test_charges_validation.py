"""Bad input to POST /charges: each a documented 4xx in the caller's shape, never a 500."""

from __future__ import annotations

import pytest

from tests.demo import ISSUER, body, count_charges, headers

GOOD = {"amount": 1050, "currency": "usd"}
CONTROL = "must not contain control characters (U+0000-U+001F, U+007F-U+009F)"
VALIDATION = [
    ({"amount": "1050", "currency": "usd"}, [("/amount", "must be an integer (minor units, e.g. 1050 for 10.50)")]),
    ({"amount": True, "currency": "usd"}, [("/amount", "must be an integer (minor units, e.g. 1050 for 10.50)")]),
    ({"amount": 10.5, "currency": "usd"}, [("/amount", "must be an integer (minor units, e.g. 1050 for 10.50)")]),
    ({"amount": 1050.0, "currency": "usd"}, [("/amount", "must be an integer (minor units, e.g. 1050 for 10.50)")]),
    ({"amount": 0, "currency": "usd"}, [("/amount", "must be greater than 0")]),
    ({"amount": -5, "currency": "usd"}, [("/amount", "must be greater than 0")]),
    ({"amount": 100_000_000, "currency": "usd"}, [("/amount", "must be at most 99999999")]),
    ({"amount": 10**40, "currency": "usd"}, [("/amount", "must be at most 99999999")]),
    ({"currency": "usd"}, [("/amount", "is required")]),
    ({"amount": 1, "currency": "USD"}, [("/currency", "must be a lower-case ISO 4217 currency code, e.g. usd")]),
    ({"amount": 1, "currency": "xyz"}, [("/currency", "must be a lower-case ISO 4217 currency code, e.g. usd")]),
    ({"amount": 1, "currency": ["usd"]}, [("/currency", "must be a string")]),
    ({"amount": 1, "currency": "usd", "description": "x" * 501}, [("/description", "must be at most 500 characters")]),
    ({"amount": 1, "currency": "usd", "description": 5}, [("/description", "must be a string")]),
    ({"amount": 1, "currency": "usd", "description": "Order\x001042"}, [("/description", CONTROL)]),
    ({"amount": 1, "currency": "usd", "description": "Order\x1b[31m1042"}, [("/description", CONTROL)]),
    ({"amount": 1, "currency": "usd", "description": "Order\r\n1042"}, [("/description", CONTROL)]),
    ({"amount": 1, "currency": "usd", "invoice_id": "../etc"}, [("/invoice_id", "must be 1-64 letters, digits, '_' or '-'")]),
    ({"amount": 1, "currency": "usd", "livemode": True}, [("/livemode", "is not a member of a charge")]),
    ({"amount": 1, "currency": "usd", "a/b~c": 1}, [("/a~1b~0c", "is not a member of a charge")]),
    ({}, [("/amount", "is required"), ("/currency", "is required")]),
]


@pytest.mark.parametrize(("payload", "errors"), VALIDATION)
def test_invalid_members_are_422_with_pointers(demo, invoke, payload, errors):
    result = invoke("charges", demo.event("POST", body=payload))
    assert result["statusCode"] == 422
    assert headers(result)["content-type"] == "application/problem+json"
    summary = "; ".join(f"{p} {m}" for p, m in errors)
    assert body(result) == {
        "type": f"{ISSUER}/problems/validation_failed", "title": "Validation failed", "status": 422,
        "detail": f"The charge request is not valid: {summary}.", "instance": "/charges",
        "code": "validation_failed", "traceId": headers(result)["x-request-id"],
        "errors": [{"pointer": p, "detail": m} for p, m in errors],
    }
    assert count_charges() == 0


def test_currency_not_enabled_for_tenant_is_422(demo, invoke):
    result = invoke("charges", demo.event("POST", body={"amount": 100, "currency": "gbp"}))
    assert result["statusCode"] == 422
    problem = body(result)
    assert (problem["code"], problem["detail"], problem["errors"]) == (
        "currency_not_enabled", "Currency gbp is not enabled for this account.",
        [{"pointer": "/currency", "detail": "is not enabled for this account"}])
    # eur is enabled for demo but not for acme.
    assert invoke("charges", demo.event("POST", body={"amount": 1, "currency": "eur"}))["statusCode"] == 201
    foreign = invoke("charges", demo.event("POST", body={"amount": 1, "currency": "eur"}, client="acme-service"))
    assert (foreign["statusCode"], body(foreign)["code"]) == (422, "currency_not_enabled")


@pytest.mark.parametrize(("raw", "detail"), [
    ('{"amount": 1,', "The body is not valid JSON: Expecting property name enclosed in double quotes at line 1 column 14."),
    ('[1, 2]', "The body must be a JSON object, not list."),
    ('{"amount": 1, "amount": 2, "currency": "usd"}', "The member 'amount' appears more than once."),
    ('{"amount": NaN, "currency": "usd"}', "The body is not valid JSON, or nests too deeply."),
    ("", "The body is empty; send a JSON object."),
])
def test_malformed_json_is_400(demo, invoke, raw, detail):
    event = demo.event("POST", raw_body=raw, headers={"Content-Type": "application/json"})
    result = invoke("charges", event)
    assert result["statusCode"] == 400
    problem = body(result)
    assert (problem["code"], problem["status"], problem["detail"]) == ("malformed_json", 400, detail)
    assert count_charges() == 0


def test_wrong_content_type_is_415(demo, invoke):
    event = demo.event("POST", raw_body="amount=1&currency=usd",
                       headers={"Content-Type": "application/x-www-form-urlencoded"})
    result = invoke("charges", event)
    assert result["statusCode"] == 415
    assert body(result)["code"] == "unsupported_media_type"
    assert body(result)["errors"] == [{"detail": "Expected application/json.", "header": "Content-Type"}]


def test_body_over_the_bound_is_413(demo, invoke):
    raw = '{"amount": 1, "currency": "usd", "description": "' + "x" * (64 * 1024) + '"}'
    result = invoke("charges", demo.event("POST", raw_body=raw))
    assert result["statusCode"] == 413
    assert body(result)["code"] == "payload_too_large"


@pytest.mark.parametrize(("key", "detail"), [
    ("", "Idempotency-Key must not be empty."),
    ("k" * 256, "Idempotency-Key must be at most 255 characters."),
    ("has space", "Idempotency-Key must be visible ASCII characters (no spaces)."),
    ("clé", "Idempotency-Key must be visible ASCII characters (no spaces)."),
    ("tab\there", "Idempotency-Key must be visible ASCII characters (no spaces)."),
    (["a", "b"], "Send Idempotency-Key once."),
])
def test_bad_idempotency_key_is_400(demo, invoke, key, detail):
    result = invoke("charges", demo.event("POST", body=GOOD, headers={"Idempotency-Key": key}))
    assert result["statusCode"] == 400
    problem = body(result)
    assert (problem["code"], problem["detail"]) == ("invalid_idempotency_key", detail)
    assert problem["errors"] == [{"detail": detail, "header": "Idempotency-Key"}]
    assert count_charges() == 0


def test_longest_key_is_accepted(demo, invoke):
    key = "".join(chr(33 + i % 94) for i in range(255))
    result = invoke("charges", demo.event("POST", body=GOOD, headers={"Idempotency-Key": key}))
    assert result["statusCode"] == 201


def test_jsonapi_shape_when_accepted(demo, invoke):
    event = demo.event("POST", body={"amount": "1", "currency": "usd", "extra": 1},
                       headers={"Accept": "application/vnd.api+json"})
    result = invoke("charges", event)
    assert result["statusCode"] == 422
    assert headers(result)["content-type"] == "application/vnd.api+json"
    trace = headers(result)["x-request-id"]
    common = {"status": "422", "code": "validation_failed", "title": "Validation failed",
              "links": {"type": f"{ISSUER}/problems/validation_failed"}, "meta": {"traceId": trace}}
    assert body(result) == {"jsonapi": {"version": "1.1"}, "errors": [
        {**common, "detail": "must be an integer (minor units, e.g. 1050 for 10.50)", "source": {"pointer": "/amount"}},
        {**common, "detail": "is not a member of a charge", "source": {"pointer": "/extra"}},
    ]}


def test_jsonapi_key_error_points_at_the_header(demo, invoke):
    event = demo.event("POST", body=GOOD, headers={"Accept": "application/vnd.api+json", "Idempotency-Key": ""})
    errors = body(invoke("charges", event))["errors"]
    assert [(e["code"], e["source"]) for e in errors] == [("invalid_idempotency_key", {"header": "Idempotency-Key"})]


def test_legacy_a_client_gets_variant_a(demo, invoke):
    result = invoke("charges", demo.event("POST", body={"amount": 0, "currency": "usd"}, client="demo-legacy-a"))
    assert result["statusCode"] == 422
    assert headers(result)["content-type"] == "application/json"
    assert body(result) == {"error": "validation_failed", "code": "validation_failed", "status": 422,
                            "message": "The charge request is not valid: /amount must be greater than 0."}


def test_legacy_b_client_gets_variant_b(demo, invoke):
    result = invoke("charges", demo.event("POST", body={"amount": 1, "currency": "usd", "x": 1}, client="demo-legacy-b"))
    assert result["statusCode"] == 422
    assert body(result) == {"success": False, "errors": [
        {"field": "x", "message": "is not a member of a charge", "code": "validation_failed"}]}


def test_legacy_client_can_still_ask_for_problem_json(demo, invoke):
    event = demo.event("POST", body={"amount": 0, "currency": "usd"}, client="demo-legacy-b",
                       headers={"Accept": "application/problem+json"})
    result = invoke("charges", event)
    assert headers(result)["content-type"] == "application/problem+json"
    assert body(result)["errors"] == [{"pointer": "/amount", "detail": "must be greater than 0"}]


def test_legacy_b_malformed_json(demo, invoke):
    result = invoke("charges", demo.event("POST", raw_body="{", client="demo-legacy-b"))
    assert result["statusCode"] == 400
    assert body(result)["success"] is False
    assert body(result)["errors"][0]["code"] == "malformed_json"
