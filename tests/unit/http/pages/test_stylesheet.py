"""http.pages.stylesheet: the one stylesheet every page links, and its route."""

from __future__ import annotations

from authgate.http.pages.stylesheet import STYLESHEET, get_stylesheet, link
from tests.events import request


def test_a_page_links_the_stylesheet_by_its_digest_and_the_route_serves_it() -> None:
    assert link() == f'<link rel="stylesheet" href="../assets/authgate.css?v={STYLESHEET.version()}">'
    response = get_stylesheet(request(path="/assets/authgate.css", method="GET"))
    assert (response.status, response.headers, response.body) == (200, STYLESHEET.response().headers,
                                                                  STYLESHEET.text())
    assert "main {" in response.body
