"""authgate_cli.local.demo_app.pages: a result page's sections are numbered in the order they come."""

from __future__ import annotations

from authgate_cli.local.demo_app.pages import numbered, part


def test_sections_are_numbered_from_one_in_order_and_their_parts_are_not() -> None:
    assert numbered([("The code came back", "<p>a</p>"), ("Code exchanged", "<pre>b</pre>" + part("Claims", "c"))]) \
        == ('<section class="step"><h2>1. The code came back</h2><p>a</p></section>'
            '<section class="step"><h2>2. Code exchanged</h2><pre>b</pre><h3>Claims</h3>c</section>')
