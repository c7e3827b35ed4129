"""http.pages.stylesheet: one stylesheet, cached for a year under a link that changes with its content."""

from __future__ import annotations

import hashlib

from authgate.http.pages.stylesheet import PATH, STYLESHEET_FILE, get_stylesheet, link, version
from tests.events import request


def test_the_link_names_the_content_hash_and_the_response_is_immutable() -> None:
    with open(STYLESHEET_FILE, encoding="utf-8") as f:
        css = f.read()
    digest = hashlib.sha256(css.encode("utf-8")).hexdigest()[:16]
    assert (version(), link()) == (digest, f'<link rel="stylesheet" href="..{PATH}?v={digest}">')
    response = get_stylesheet(request(path=PATH, method="GET"))
    assert (response.status, response.body, response.headers) == (200, css, {
        "Content-Type": "text/css; charset=utf-8", "Cache-Control": "public, max-age=31536000, immutable",
        "X-Content-Type-Options": "nosniff", "ETag": f'"{digest}"'})
