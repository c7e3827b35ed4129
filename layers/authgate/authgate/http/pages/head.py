"""What the head of every HTML page links: the stylesheet (http.pages.stylesheet) and the icon (http.pages.icon)."""

from __future__ import annotations

from authgate.http.pages import icon, stylesheet


def links(depth: int = 1) -> str:
    """The <link> elements every page's head carries (a page `depth` levels down: http.pages.assets)."""
    return stylesheet.link(depth) + icon.link(depth)
