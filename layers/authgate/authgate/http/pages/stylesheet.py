"""GET /assets/authgate.css: the one stylesheet of every HTML page (CSP `style-src 'self'`, no inline style).

Served and linked as every page asset is (http.pages.assets): relative to the page, with a digest
of the content, cached for a year.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.http.pages.assets import Asset

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.http.response import Response

STYLESHEET = Asset("authgate.css", "text/css; charset=utf-8")


def link(depth: int = 1, root: str = "") -> str:
    """The <link> element every page's head carries (`depth`, `root`: Asset.href)."""
    return f'<link rel="stylesheet" href="{STYLESHEET.href(depth, root)}">'


def get_stylesheet(request: Request) -> Response:
    return STYLESHEET.response()
