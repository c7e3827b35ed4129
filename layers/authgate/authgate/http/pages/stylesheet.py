"""GET /assets/authgate.css: the one stylesheet of every HTML page (CSP `style-src 'self'`, no inline style).

Pages link it relative to their own path (`../assets/authgate.css`: every page lives one level
down, /oauth/authorize and /problems/{code}), so the link works behind a stage path or a
custom domain alike and stays same-origin. The link carries a digest of the content, so the
file can be cached for a year and a changed stylesheet is a new URL.
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING

from authgate.caches import cached
from authgate.http.response import Response

if TYPE_CHECKING:
    from authgate.http.request import Request

PATH = "/assets/authgate.css"
# Read with open(), not importlib.resources, as errors.catalogue does: that import lengthens every
# function's cold start (docs/decisions.md); this module is on every error renderer's import path.
STYLESHEET_FILE = os.path.join(os.path.dirname(__file__), "authgate.css")


@cached
def stylesheet() -> str:
    with open(STYLESHEET_FILE, encoding="utf-8") as f:
        return f.read()


@cached
def version() -> str:
    return hashlib.sha256(stylesheet().encode("utf-8")).hexdigest()[:16]


def link() -> str:
    """The <link> element every page's head carries."""
    return f'<link rel="stylesheet" href="..{PATH}?v={version()}">'


def get_stylesheet(request: Request) -> Response:
    """The stylesheet, immutable for a year (the link changes with the content)."""
    return Response(200, stylesheet(), {
        "Content-Type": "text/css; charset=utf-8",
        "Cache-Control": "public, max-age=31536000, immutable",
        "X-Content-Type-Options": "nosniff",
        "ETag": f'"{version()}"',
    })
