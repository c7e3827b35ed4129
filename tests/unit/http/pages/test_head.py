"""http.pages.head: every page's head links the stylesheet and the icon, relative to the page."""

from __future__ import annotations

from authgate.http.pages.head import links
from authgate.http.pages.icon import ICON
from authgate.http.pages.stylesheet import STYLESHEET


def test_a_page_links_the_stylesheet_then_the_icon() -> None:
    assert links() == (f'<link rel="stylesheet" href="../assets/authgate.css?v={STYLESHEET.version()}">'
                       f'<link rel="icon" type="image/svg+xml" href="../assets/icon.svg?v={ICON.version()}">')
