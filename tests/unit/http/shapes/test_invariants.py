"""Contract invariants over every catalogue code x every shape (docs/contract.md section 2).

Body status equals HTTP status, the content type matches the shape, the code is present,
traceId equals x-request-id, no failure is sent with 200 - checked by read_error too.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from authgate.errors import ApiError, FieldError
from authgate.errors.catalogue import catalogue
from authgate.http.context import RequestContext
from authgate.http.shapes.render import render_error
from authgate_cli.check import read_error
from tests.events import request

CODES = sorted(catalogue())
SHAPES = {  # how a shape is asked for -> (expected content type, shape read_error must see)
    "problem": ({}, RequestContext(), "application/problem+json", "problem"),
    "jsonapi": ({"Accept": "application/vnd.api+json"}, RequestContext(), "application/vnd.api+json", "jsonapi"),
    "legacy-a": ({}, RequestContext(error_format="legacy-a"), "application/json", "legacy-a"),
    "legacy-b": ({"Accept": "*/*"}, RequestContext(error_format="legacy-b"), "application/json", "legacy-b"),
    "oauth": ({}, RequestContext(), "application/json", "oauth"),
}
request_ids = st.from_regex(r"[A-Za-z0-9._:@/+=-]{1,128}", fullmatch=True)
texts = st.text(max_size=200)
field_errors = st.lists(st.builds(FieldError, st.from_regex(r"(/[a-z0-9~]{1,8}){0,3}", fullmatch=True), texts),
                        max_size=3)


@settings(max_examples=200, deadline=None)
@given(code=st.sampled_from(CODES), shape=st.sampled_from(sorted(SHAPES)), detail=texts, request_id=request_ids,
       fields=field_errors)
def test_every_code_in_every_shape_keeps_the_contract(code, shape, detail, request_id, fields):
    headers, context, content_type, seen_shape = SHAPES[shape]
    req = request(headers, context=context)
    req.request_id = request_id
    # The raiser of a 405 names the allowed methods (http.app does); everything else is the renderer's.
    extra = {"Allow": "GET, POST"} if catalogue()[code].status == 405 else {}
    error = ApiError(code, detail, field_errors=tuple(fields), headers=extra)
    response = render_error(error, req, "oauth" if shape == "oauth" else "api")
    response.set_header("x-request-id", request_id)  # what the App adds to every response

    body = json.loads(response.body)
    assert response.status == catalogue()[code].status >= 400
    assert response.headers["Content-Type"] == content_type
    if shape != "oauth":
        assert response.headers["Vary"] == "Accept"
    statuses = {"problem": lambda b: [b["status"]], "jsonapi": lambda b: [int(e["status"]) for e in b["errors"]],
                "legacy-a": lambda b: [b["status"]], "legacy-b": lambda b: [], "oauth": lambda b: []}[shape](body)
    assert all(s == response.status for s in statuses)
    if shape == "problem":
        assert body["code"] == code and body["traceId"] == request_id
    elif shape == "jsonapi":
        assert {e["code"] for e in body["errors"]} == {code}
        assert {e["meta"]["traceId"] for e in body["errors"]} == {request_id}
    elif shape == "legacy-a":
        assert body["code"] == body["error"] == code
    elif shape == "legacy-b":
        assert body["success"] is False and {e["code"] for e in body["errors"]} == {code}
    else:
        assert body["error"] and body["error_uri"].endswith(f"/problems/{code}")

    reading = read_error(response.status, response.headers, response.body)
    assert (reading.shape, reading.status, reading.defects) == (seen_shape, response.status, ())
    assert reading.request_id == request_id
