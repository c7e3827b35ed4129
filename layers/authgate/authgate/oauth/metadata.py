"""GET /.well-known/oauth-authorization-server (RFC 8414). STUB: issue 4 implements."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.http.response import Response


def get_metadata(request: "Request") -> "Response":
    raise NotImplementedError("issue 4")
