"""http.pages.onward: an address this server cannot vouch for, offered as a link that names its origin."""

from __future__ import annotations

import pytest

from authgate.http.pages.onward import onward_link, origin


@pytest.mark.parametrize(("location", "shown"), [
    ("https://phish.example/back?state=s", "https://phish.example"),
    ("https://user:pw@phish.example:8443/x", "https://phish.example:8443"),  # never the user information
    ("http://127.0.0.1:9/callback", "http://127.0.0.1:9"),
    ("com.example.app:/callback", "com.example.app:"),  # a native app's private-use scheme (RFC 8252 7.1)
])
def test_the_origin_is_what_a_person_should_read(location: str, shown: str) -> None:
    assert origin(location) == shown


def test_the_link_is_escaped_and_names_where_it_goes() -> None:
    assert onward_link('https://phish.example/"><script>?a=1&b=2') == (
        "<p>The application asks to take you to <strong>https://phish.example</strong>. It registered itself with "
        "this server, which cannot vouch for that address: go on only if you trust it.</p>\n"
        '<p><a href="https://phish.example/&quot;&gt;&lt;script&gt;?a=1&amp;b=2" rel="noreferrer">'
        "Continue to https://phish.example</a></p>")
