"""GET /assets/passkeys.js: the passkey pages' one script (CSP `script-src 'self'` on those pages only).

Served and linked as every page asset is (http.pages.assets): relative to the page, with a digest
of the content, cached for a year.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.http.pages.assets import Asset

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.http.response import Response

SCRIPT = Asset("passkeys.js", "text/javascript; charset=utf-8")


def tag() -> str:
    """The <script> element of a passkey page (deferred: it runs once the form is parsed)."""
    return f'<script src="{SCRIPT.href()}" defer></script>'


def get_script(request: Request) -> Response:
    return SCRIPT.response()
