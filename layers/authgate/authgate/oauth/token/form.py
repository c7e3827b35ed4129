"""The form body of the token, revocation and introspection endpoints (RFC 6749 §3.2, §3.1).

Requests are application/x-www-form-urlencoded; a parameter sent more than once, or any
parameter in the URI query, is invalid_request. A parameter with an empty value is treated
as omitted (RFC 6749 §3.1).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from authgate.errors import ApiError
from authgate.oauth.resource_indicator import several_resources

if TYPE_CHECKING:
    from authgate.http.request import Request

FORM_TYPE = "application/x-www-form-urlencoded"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def read_form(request: Request) -> dict[str, str]:
    """The body's parameters, each at most once; empty values dropped."""
    if request.content_type != FORM_TYPE:
        raise ApiError("invalid_request",
                       f"The request body must be {FORM_TYPE} (RFC 6749 3.2).",
                       internal=f"content type {request.content_type or '(none)'}")
    if request.query:
        # Credentials and grants never travel in the URI (RFC 6749 2.3.1, 3.2).
        raise ApiError("invalid_request", "Parameters must be sent in the request body, not the URI query.")
    params: dict[str, str] = {}
    seen: set[str] = set()
    for name, value in request.form():
        if name in seen:
            if name == "resource":
                raise several_resources()
            raise ApiError("invalid_request", f"The parameter {name[:40]!r} is repeated (RFC 6749 3.2).")
        seen.add(name)
        if _CONTROL.search(value):
            raise ApiError("invalid_request", f"The parameter {name[:40]!r} contains control characters.")
        if value:
            params[name] = value
    return params
