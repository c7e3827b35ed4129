"""The Bearer scheme at a protected resource (RFC 6750): the token in a request, and its errors.

Credentials: the Authorization header (section 2.1); the form body (2.2) only where a route asks
for it (UserInfo). The query method (2.3), and the form elsewhere, are refused as an unsupported
authentication method (tokens in URLs end up in logs).
Errors (section 3.1), each with its challenge (errors.challenges): no credentials 401 without
an error code; malformed request 400 invalid_request; any bad token 401 invalid_token; missing
scope 403 insufficient_scope.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from authgate.errors import ApiError
from authgate.errors.challenges import bearer

if TYPE_CHECKING:
    from authgate.request_protocol import RequestView

# RFC 6750 section 2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
_TOKEN68 = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
# Scheme, separator, credentials of a header value already stripped (RFC 9110 11.4). Greedy: a
# lazy `(.*?)\s*` matches the same groups on a stripped value but retries the tail at every
# character, ~100 times slower on an 800-character token.
_CREDENTIALS = re.compile(r"(\S+)(\s*)(.*)")
NO_CREDENTIALS = "The request carries no credentials; send Authorization: Bearer <token>."


def unauthenticated(detail: str = NO_CREDENTIALS) -> ApiError:
    """401 with no error code: the request had no (supported) credentials (RFC 6750 section 3.1)."""
    return ApiError("unauthenticated", detail, headers={"WWW-Authenticate": bearer()})


def invalid_request(detail: str) -> ApiError:
    return ApiError("invalid_request", detail, headers={"WWW-Authenticate": bearer(error="invalid_request",
                                                                                   description=detail)})


def invalid_token(detail: str, internal: str = "") -> ApiError:
    return ApiError("invalid_token", detail, internal=internal,
                    headers={"WWW-Authenticate": bearer(error="invalid_token", description=detail)})


def insufficient_scope(required: str) -> ApiError:
    detail = f"The access token lacks the scope {required}."
    return ApiError("insufficient_scope", detail, headers={
        "WWW-Authenticate": bearer(error="insufficient_scope", description=detail, scope=required)})


def extract_credentials(request: RequestView, *, form_body: bool = False) -> tuple[str, str]:
    """The scheme ("bearer" or "dpop", RFC 9449 7.1) and access token of a request, or the RFC 6750 3.1 error.

    `form_body`: a POSTed form's access_token is accepted too (RFC 6750 2.2; OpenID Connect Core 5.3.1
    asks it of the UserInfo endpoint), as a bearer token."""
    headers = request.headers.get_all("authorization")
    in_query = request.query.get("access_token", [])
    in_form: list[str] = []
    if request.content_type == "application/x-www-form-urlencoded" and request.body:
        in_form = [v for k, v in request.form() if k == "access_token"]
    if len(headers) > 1:
        raise invalid_request("The request carries more than one Authorization header.")
    from_header: str | None = None
    used = "bearer"
    if headers and headers[0].strip():
        match = _CREDENTIALS.fullmatch(headers[0].strip())
        scheme, separator, credentials = match.groups() if match else ("", "", "")
        if scheme.lower() in ("bearer", "dpop"):
            used = scheme.lower()
            name = "Bearer" if used == "bearer" else "DPoP"
            if not credentials:
                raise invalid_request(f"The {name} credentials are empty.")
            if set(separator) != {" "} or not _TOKEN68.fullmatch(credentials):
                raise invalid_request(f"The Authorization header must be {name} followed by exactly one token "
                                      "(token68 syntax).")
            from_header = credentials
    methods = (from_header is not None) + bool(in_query) + bool(in_form)
    if methods > 1 or len(in_query) > 1 or len(in_form) > 1:
        raise invalid_request("The access token was sent by more than one method; send it only in the Authorization header.")
    if from_header is not None:
        return used, from_header
    if in_form and form_body and request.method == "POST":
        if not _TOKEN68.fullmatch(in_form[0]):
            raise invalid_request("The access_token parameter is not a token (token68 syntax).")
        return "bearer", in_form[0]
    if in_query or in_form:
        # RFC 6750 2.2/2.3 methods are not supported (tokens in URLs end up in logs): treated
        # as an unsupported authentication method, which carries no error code (section 3.1).
        raise unauthenticated("The access_token parameter is not accepted; send Authorization: Bearer <token>.")
    raise unauthenticated()
