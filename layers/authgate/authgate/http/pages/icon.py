"""GET /assets/icon.svg: the icon every HTML page names, so that no browser asks for /favicon.ico.

A page that names no icon makes a browser ask for /favicon.ico at the host's root: outside the API
behind a stage path, a 404 elsewhere, and an error in the browser's console either way. Served and
linked as every page asset is (http.pages.assets), which CSP `img-src 'self'` allows; an SVG opened
on its own runs nothing (its own CSP).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.http.pages.assets import Asset

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.http.response import Response

ICON = Asset("icon.svg", "image/svg+xml", headers=(("Content-Security-Policy", "default-src 'none'"),))


def link(depth: int = 1, root: str = "") -> str:
    """The icon's <link> element (`depth`, `root`: Asset.href)."""
    return f'<link rel="icon" type="image/svg+xml" href="{ICON.href(depth, root)}">'


def get_icon(request: Request) -> Response:
    return ICON.response()
