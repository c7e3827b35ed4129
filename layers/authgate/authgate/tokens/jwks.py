"""GET /.well-known/jwks.json (RFC 7517). STUB: issue 5 implements.

Must stay lean (the jwks function's cold start budget is 1.1x `import boto3`): public JWKs are
read from the keys table as stored JSON; no jwt/cryptography import on this path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.http.response import Response


def get_jwks(request: "Request") -> "Response":
    raise NotImplementedError("issue 5")
