"""Every wire shape, asserted whole: status, headers and body."""

from __future__ import annotations

import json

from authgate.errors import ApiError, FieldError
from authgate.http.context import AuthorizationRedirect, RequestContext
from authgate.http.shapes.render import render_error
from tests.demo import ISSUER
from tests.events import request

FIELDS = (FieldError("/amount", "Must be a positive integer."),
          FieldError("", "Unknown currency.", "query", "currency"),
          FieldError("", "Too long.", "header", "Idempotency-Key"))


def whole(response):
    return response.status, response.headers, json.loads(response.body)


def test_problem_details_is_the_default():
    error = ApiError("validation_failed", "Two members are wrong.", internal="db says hi", field_errors=FIELDS)
    assert whole(render_error(error, request(), "api")) == (422, {
        "Content-Type": "application/problem+json", "Vary": "Accept",
    }, {
        "type": f"{ISSUER}/problems/validation_failed",
        "title": "Validation failed", "status": 422, "detail": "Two members are wrong.",
        "instance": "/charges", "code": "validation_failed", "traceId": "req-1",
        "errors": [{"detail": "Must be a positive integer.", "pointer": "/amount"},
                   {"detail": "Unknown currency.", "parameter": "currency"},
                   {"detail": "Too long.", "header": "Idempotency-Key"}],
    })


def test_jsonapi_when_accept_names_it():
    error = ApiError("validation_failed", "Two members are wrong.", field_errors=FIELDS[:2])
    base = {"status": "422", "code": "validation_failed", "title": "Validation failed",
            "links": {"type": f"{ISSUER}/problems/validation_failed"},
            "meta": {"traceId": "req-1"}}
    assert whole(render_error(error, request({"Accept": "application/vnd.api+json"}), "api")) == (422, {
        "Content-Type": "application/vnd.api+json", "Vary": "Accept",
    }, {"jsonapi": {"version": "1.1"}, "errors": [
        {**base, "detail": "Must be a positive integer.", "source": {"pointer": "/amount"}},
        {**base, "detail": "Unknown currency.", "source": {"parameter": "currency"}},
    ]})


def test_jsonapi_without_field_errors_is_one_error_object():
    response = render_error(ApiError("invoice_locked", "Invoice inv_locked is locked."),
                            request({"Accept": "application/vnd.api+json"}), "api")
    assert json.loads(response.body)["errors"] == [{
        "status": "403", "code": "invoice_locked", "title": "Invoice locked",
        "links": {"type": f"{ISSUER}/problems/invoice_locked"},
        "meta": {"traceId": "req-1"}, "detail": "Invoice inv_locked is locked."}]


def test_legacy_a_for_a_client_registered_with_it():
    response = render_error(ApiError("invoice_locked", "Invoice inv_locked is locked."),
                            request(context=RequestContext(error_format="legacy-a")), "api")
    assert whole(response) == (403, {"Content-Type": "application/json", "Vary": "Accept"}, {
        "error": "invoice_locked", "message": "Invoice inv_locked is locked.", "code": "invoice_locked",
        "status": 403})


def test_legacy_b_carries_the_real_status_never_200():
    response = render_error(ApiError("validation_failed", "Bad.", field_errors=(
        FieldError("/items/0/name", "Required."), FieldError("", "Bad key.", "header", "Idempotency-Key"))),
        request(context=RequestContext(error_format="legacy-b")), "api")
    assert whole(response) == (422, {"Content-Type": "application/json", "Vary": "Accept"}, {
        "success": False, "errors": [
            {"field": "items.0.name", "message": "Required.", "code": "validation_failed"},
            {"field": "Idempotency-Key", "message": "Bad key.", "code": "validation_failed"}]})


def test_legacy_b_without_field_errors():
    response = render_error(ApiError("not_found", "No charge ch_1."), request(context=RequestContext(error_format="legacy-b")), "api")
    assert json.loads(response.body) == {"success": False, "errors": [
        {"field": "", "message": "No charge ch_1.", "code": "not_found"}]}


def test_explicit_accept_wins_over_the_registered_legacy_format():
    req = request({"Accept": "application/problem+json"}, context=RequestContext(error_format="legacy-a"))
    assert render_error(ApiError("not_found"), req, "api").headers["Content-Type"] == "application/problem+json"


def test_a_401_always_challenges_and_the_guards_challenge_wins():
    bare = render_error(ApiError("unauthenticated"), request(), "api")
    assert bare.headers["WWW-Authenticate"] == 'Bearer realm="api"'
    challenge = 'Bearer realm="api", error="invalid_token", error_description="The token expired."'
    guarded = render_error(ApiError("invalid_token", "The token expired.", headers={"WWW-Authenticate": challenge}),
                           request(), "api")
    assert guarded.headers == {"Content-Type": "application/problem+json", "Vary": "Accept",
                               "WWW-Authenticate": challenge}


def test_503_gets_a_retry_after_floor_and_keeps_a_given_one():
    assert render_error(ApiError("service_unavailable"), request(), "api").headers["Retry-After"] == "1"
    given = render_error(ApiError("rate_limited", headers={"Retry-After": "17"}), request(), "api")
    assert given.headers["Retry-After"] == "17"


def test_oauth_json_for_token_endpoint_errors():
    response = render_error(ApiError("invalid_grant", "The code was already used."), request(), "oauth")
    assert whole(response) == (400, {"Content-Type": "application/json", "Cache-Control": "no-store",
                                     "Pragma": "no-cache"}, {
        "error": "invalid_grant", "error_description": "The code was already used.",
        "error_uri": f"{ISSUER}/problems/invalid_grant"})


def test_oauth_invalid_client_is_401_with_basic_challenge():
    response = render_error(ApiError("invalid_client", "Unknown client."), request(), "oauth")
    assert whole(response) == (401, {"Content-Type": "application/json", "Cache-Control": "no-store",
                                     "Pragma": "no-cache", "WWW-Authenticate": 'Basic realm="oauth"'}, {
        "error": "invalid_client", "error_description": "Unknown client.",
        "error_uri": f"{ISSUER}/problems/invalid_client"})


def test_oauth_any_invalid_client_is_401_with_basic_challenge():
    """A failure whose OAuth error is invalid_client (a refused metadata document, catalogued 400 because the
    authorization endpoint shows it on a page) is 401 at the token endpoint (RFC 6749 5.2)."""
    error = ApiError("client_metadata_unreachable", "The document could not be fetched.", oauth_error="invalid_client")
    assert whole(render_error(error, request(), "oauth")) == (
        401, {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache",
              "WWW-Authenticate": 'Basic realm="oauth"'}, {
            "error": "invalid_client", "error_description": "The document could not be fetched.",
            "error_uri": f"{ISSUER}/problems/client_metadata_unreachable"})
    assert render_error(error, request(), "authorize").status == 400  # the page keeps the catalogue's status


def test_oauth_maps_application_codes_keeping_the_status():
    cases = {"service_unavailable": (503, "temporarily_unavailable"), "rate_limited": (429, "temporarily_unavailable"),
             "internal_error": (500, "server_error"), "payload_too_large": (413, "invalid_request"),
             "method_not_allowed": (405, "invalid_request"), "unsupported_media_type": (415, "invalid_request")}
    for code, (status, oauth) in cases.items():
        response = render_error(ApiError(code), request(), "oauth")
        body = json.loads(response.body)
        assert (response.status, body["error"], body["error_uri"]) == (
            status, oauth, f"{ISSUER}/problems/{code}"), code


def test_oauth_description_is_restricted_to_the_rfc_charset():
    response = render_error(ApiError("invalid_request", 'Bad "redirect_uri" \\ value\r\nX-Injected: 1 — ü'),
                            request(), "oauth")
    assert json.loads(response.body)["error_description"] == "Bad 'redirect_uri' / value X-Injected: 1 u"


def test_authorize_errors_redirect_once_the_redirect_uri_is_validated():
    trusted = AuthorizationRedirect("http://127.0.0.1:8765/callback?tenant=demo", "xyz 1")
    req = request(context=RequestContext(redirect=trusted), path="/oauth/authorize", method="GET")
    response = render_error(ApiError("access_denied", "The user denied the request."), req, "authorize")
    assert (response.status, response.headers, response.body) == (302, {
        "Location": "http://127.0.0.1:8765/callback?tenant=demo&error=access_denied"
                    "&error_description=The+user+denied+the+request.&state=xyz+1"
                    "&iss=http%3A%2F%2F127.0.0.1%3A3000",
        "Cache-Control": "no-store", "Pragma": "no-cache"}, "")


def test_authorize_5xx_stand_ins_on_the_redirect():
    req = request(context=RequestContext(redirect=AuthorizationRedirect("https://c.example/cb", None)),
                  path="/oauth/authorize", method="GET")
    for code, oauth in (("service_unavailable", "temporarily_unavailable"), ("internal_error", "server_error"),
                        ("rate_limited", "temporarily_unavailable")):
        location = render_error(ApiError(code), req, "authorize").headers["Location"]
        assert location.startswith(f"https://c.example/cb?error={oauth}&"), location


def test_authorize_errors_before_validation_are_a_page_never_a_redirect():
    from authgate.http.pages.icon import ICON
    from authgate.http.pages.stylesheet import STYLESHEET

    req = request(path="/oauth/authorize", method="GET")
    response = render_error(ApiError("invalid_request", "Unknown client_id <script>."), req, "authorize")
    assert response.status == 400
    assert response.headers == {
        "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Pragma": "no-cache",
        "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'none'; "
                                   "frame-ancestors 'none'; base-uri 'none'",
        "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
    assert response.body == (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer"><title>Invalid request</title>'
        f'<link rel="stylesheet" href="../assets/authgate.css?v={STYLESHEET.version()}">'
        f'<link rel="icon" type="image/svg+xml" href="../assets/icon.svg?v={ICON.version()}"></head>'
        '<body><main class="error"><h1>Invalid request</h1><p>Unknown client_id &lt;script&gt;.</p>'
        '<p class="meta">Error code: <code>invalid_request</code> &middot; request id <code>req-1</code></p>'
        "</main></body></html>")
