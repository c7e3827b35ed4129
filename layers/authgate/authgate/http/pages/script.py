"""GET /assets/passkeys.js: the pages' one script (CSP `script-src 'self'` on those pages only): a passkey's ceremony,
and the continue form that takes an identity provider's answer back to the flow's page (interaction.upstream_pages).

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


def tag(depth: int = 1) -> str:
    """The <script> element of a page that runs it (deferred: it runs once the form is parsed)."""
    return f'<script src="{SCRIPT.href(depth)}" defer></script>'


def get_script(request: Request) -> Response:
    return SCRIPT.response()
