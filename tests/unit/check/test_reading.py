"""authgate_cli.check.read_error: every shape, request ids, Retry-After, and the contract defects."""

from __future__ import annotations

import json

from authgate_cli.check import ErrorReading, read_error, reading

PROBLEM_HEADERS = {"Content-Type": "application/problem+json", "x-request-id": "r-1"}
NOW = 1_700_000_000.0  # 2023-11-14T22:13:20Z


def problem(**overrides):
    return json.dumps({"type": "https://a.test/problems/not_found", "title": "Not found", "status": 404,
                       "detail": "No charge ch_1.", "code": "not_found", "traceId": "r-1", **overrides})


def test_problem_details():
    assert read_error(404, PROBLEM_HEADERS, problem()) == ErrorReading(
        status=404, code="not_found", message="No charge ch_1.", shape="problem", request_id="r-1",
        retry_after=None, defects=(), content_type="application/problem+json", body=json.loads(problem()))


def test_jsonapi():
    body = {"errors": [{"status": "422", "code": "validation_failed", "title": "Validation failed",
                        "detail": "amount must be positive", "source": {"pointer": "/amount"},
                        "meta": {"traceId": "r-1"}}]}
    r = read_error(422, {"content-type": "application/vnd.api+json", "x-request-id": "r-1"}, json.dumps(body))
    assert (r.shape, r.code, r.message, r.defects) == ("jsonapi", "validation_failed", "amount must be positive", ())


def test_legacy_a_and_b():
    a = read_error(403, {"content-type": "application/json", "x-request-id": "r"},
                   {"error": "invoice_locked", "message": "Locked.", "code": "invoice_locked", "status": 403})
    assert (a.shape, a.code, a.message, a.defects) == ("legacy-a", "invoice_locked", "Locked.", ())
    b = read_error(422, {"content-type": "application/json", "x-request-id": "r"},
                   b'{"success": false, "errors": [{"field": "amount", "message": "Required.", "code": "validation_failed"}]}')
    assert (b.shape, b.code, b.message, b.defects) == ("legacy-b", "validation_failed", "Required.", ())


def test_oauth_json_and_bare_challenge():
    o = read_error(400, {"Content-Type": "application/json", "x-request-id": "r"},
                   '{"error": "invalid_grant", "error_description": "Code used."}')
    assert (o.shape, o.code, o.message, o.defects) == ("oauth", "invalid_grant", "Code used.", ())
    w = read_error(401, {"WWW-Authenticate": 'Bearer realm="api", error="invalid_token", '
                                             'error_description="The \\"token\\" expired"', "x-request-id": "r"}, "")
    assert (w.shape, w.code, w.message, w.defects) == ("www-authenticate", "invalid_token", 'The "token" expired', ())


def test_request_id_from_any_correlation_header():
    assert read_error(500, {"cf-ray": "8a1b2c-FRA"}, problem(status=500)).request_id == "8a1b2c-FRA"
    tp = {"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
    assert read_error(500, tp, "").request_id == "4bf92f3577b34da6a3ce929d0e0e4736"
    assert read_error(500, {"X-Correlation-Id": "c-1", "x-request-id": "r-2"}, "").request_id == "r-2"


def test_retry_after_seconds_or_http_date():
    assert reading.parse_retry_after("120") == 120
    assert reading.parse_retry_after("Tue, 14 Nov 2023 22:15:20 GMT", now=NOW) == 120
    assert reading.parse_retry_after("Tue, 14 Nov 2023 22:00:00 GMT", now=NOW) == 0
    assert reading.parse_retry_after("soon") is None
    r = read_error(429, {**PROBLEM_HEADERS, "Retry-After": "soon"},
                   problem(status=429, code="rate_limited"))
    assert r.defects == (reading.BAD_RETRY_AFTER,)


def test_defect_success_false_with_200():
    r = read_error(200, {"content-type": "application/json", "x-request-id": "r"},
                   '{"success": false, "errors": [{"field": "a", "message": "no", "code": "x"}]}')
    assert r.defects == (reading.SUCCESS_FALSE_WITH_2XX,) and r.is_failure


def test_defect_body_status_differs():
    assert read_error(400, PROBLEM_HEADERS, problem()).defects == (reading.STATUS_MISMATCH,)
    jsonapi = {"errors": [{"status": "404", "code": "not_found"}]}
    assert reading.STATUS_MISMATCH in read_error(400, {"x-request-id": "r"}, jsonapi).defects


def test_defect_html_on_api_route_but_not_on_a_browser_route():
    page = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>oops</body></html>"
    r = read_error(502, {"Content-Type": "text/html", "x-request-id": "r"}, page)
    assert (r.shape, r.message, r.defects) == ("html", "502 Bad Gateway", (reading.HTML_ON_API_ROUTE,))
    assert read_error(400, {"Content-Type": "text/html", "x-request-id": "r"}, page, api=False).defects == ()


def test_defect_problem_without_problem_content_type():
    r = read_error(404, {"Content-Type": "application/json", "x-request-id": "r-1"}, problem())
    assert r.defects == (reading.PROBLEM_WITHOUT_MEDIA_TYPE,)


def test_defect_missing_code_and_trace_mismatch_and_no_request_id():
    body = json.loads(problem())
    del body["code"]
    assert read_error(404, PROBLEM_HEADERS, body).defects == (reading.MISSING_CODE,)
    assert read_error(404, {**PROBLEM_HEADERS, "x-request-id": "other"}, problem()).defects == (
        reading.TRACE_ID_MISMATCH,)
    assert read_error(404, {"Content-Type": "application/problem+json"}, problem()).defects == (
        reading.NO_REQUEST_ID, reading.TRACE_ID_MISMATCH)


def test_defects_of_missing_headers():
    assert read_error(401, PROBLEM_HEADERS, problem(status=401, code="unauthenticated")).defects == (
        reading.NO_CHALLENGE,)
    assert read_error(405, PROBLEM_HEADERS, problem(status=405, code="method_not_allowed")).defects == (
        reading.NO_ALLOW,)
    assert read_error(503, PROBLEM_HEADERS, problem(status=503, code="service_unavailable")).defects == (
        reading.NO_RETRY_AFTER,)


def test_unknown_body():
    r = read_error(500, {"x-request-id": "r"}, "Internal Server Error")
    assert (r.shape, r.code, r.defects) == ("unknown", None, (reading.UNPARSEABLE,))


def test_success_is_not_a_failure():
    r = read_error(200, {"Content-Type": "application/json"}, '{"id": "ch_1"}')
    assert not r.is_failure and r.defects == ()


def test_a_successful_document_with_a_status_member_is_not_a_defect():
    doc = {"type": "https://a.test/problems/not_found", "title": "Not found", "status": 404, "code": "not_found"}
    assert read_error(200, {"Content-Type": "application/json"}, doc).defects == ()
