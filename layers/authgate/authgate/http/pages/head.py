"""What the head of every HTML page links: the stylesheet (http.pages.stylesheet) and the icon (http.pages.icon)."""

from __future__ import annotations

from authgate.http.pages import icon, stylesheet


def links(root: str = "..") -> str:
    """The <link> elements every page's head carries (`root`: http.pages.assets.Asset.href)."""
    return stylesheet.link(root) + icon.link(root)
