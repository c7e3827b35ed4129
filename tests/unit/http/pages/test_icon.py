"""http.pages.icon: the icon every page names, and its route."""

from __future__ import annotations

from authgate.http.pages.icon import ICON, get_icon, link
from tests.events import request


def test_a_page_links_the_icon_by_its_digest_and_the_route_serves_it() -> None:
    assert link() == f'<link rel="icon" type="image/svg+xml" href="../assets/icon.svg?v={ICON.version()}">'
    response = get_icon(request(path="/assets/icon.svg", method="GET"))
    assert (response.status, response.headers, response.body) == (200, ICON.response().headers, ICON.text())


def test_the_icon_is_an_svg_that_runs_nothing() -> None:
    svg = ICON.text()
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and svg.rstrip().endswith("</svg>")
    assert "<script" not in svg and " on" not in svg and "href" not in svg
