"""What the head of every HTML page links: the stylesheet (http.pages.stylesheet) and the icon (http.pages.icon)."""

from __future__ import annotations

from authgate.http.pages import icon, stylesheet


def links(depth: int = 1, root: str = "") -> str:
    """The <link> elements every page's head carries (a page `depth` levels down, or under `root`:
    http.pages.assets)."""
    return stylesheet.link(depth, root) + icon.link(depth, root)
