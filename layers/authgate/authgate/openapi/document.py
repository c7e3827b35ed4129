"""GET /openapi.json: the generated document (openapi.json beside this module), with this API's URL.

Lean on purpose (the jwks function serves it): json and the committed file, nothing else.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from authgate.http.request import Request
from authgate.http.response import Response
from authgate.issuer import base_url

DOCUMENT_PATH = Path(__file__).with_name("openapi.json")


@lru_cache(maxsize=1)
def _document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(DOCUMENT_PATH.read_text(encoding="utf-8"))
    return document


def get_openapi(request: Request) -> Response:
    document = {**_document(), "servers": [{"url": base_url(request)}]}
    return Response.json(200, document, Cache_Control="public, max-age=300")
