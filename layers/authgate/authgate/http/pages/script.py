"""GET /assets/passkeys.js: the passkey pages' one script (CSP `script-src 'self'` on those pages only).

As the stylesheet (http.pages.stylesheet): linked relative to the page (`../assets/passkeys.js`), with a
digest of the content in the link, so it is cached for a year and a changed script is a new URL.
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING

from authgate.caches import cached
from authgate.http.response import Response

if TYPE_CHECKING:
    from authgate.http.request import Request

PATH = "/assets/passkeys.js"
SCRIPT_FILE = os.path.join(os.path.dirname(__file__), "passkeys.js")


@cached
def script() -> str:
    with open(SCRIPT_FILE, encoding="utf-8") as f:
        return f.read()


@cached
def version() -> str:
    return hashlib.sha256(script().encode("utf-8")).hexdigest()[:16]


def tag() -> str:
    """The <script> element of a passkey page (deferred: it runs once the form is parsed)."""
    return f'<script src="..{PATH}?v={version()}" defer></script>'


def get_script(request: Request) -> Response:
    """The script, immutable for a year (the link changes with the content)."""
    return Response(200, script(), {
        "Content-Type": "text/javascript; charset=utf-8",
        "Cache-Control": "public, max-age=31536000, immutable",
        "X-Content-Type-Options": "nosniff",
        "ETag": f'"{version()}"',
    })
