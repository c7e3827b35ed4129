"""The parts every console page is built of (console.pages): what they write, escaped where it is written."""

from __future__ import annotations

from authgate.console.pages import Link, definitions, links, section, table


def test_a_table_escapes_its_text_and_links_its_links() -> None:
    assert table("Clients of <demo>", ("Client", "Type"), [(Link("https://x/c?a=1&b=2", "<c>"), "public & co")]) == (
        '<div class="table"><table>\n<caption>Clients of &lt;demo&gt;</caption>\n'
        '<thead><tr><th scope="col">Client</th><th scope="col">Type</th></tr></thead>\n<tbody>\n'
        '<tr><th scope="row"><a href="https://x/c?a=1&amp;b=2">&lt;c&gt;</a></th><td>public &amp; co</td></tr>\n'
        "</tbody>\n</table></div>")


def test_definitions_say_so_when_there_are_none() -> None:
    assert definitions("Keys", [], empty="No key <yet>.") == "<section>\n<h2>Keys</h2>\n<p>No key &lt;yet&gt;.</p>\n</section>"
    assert definitions("Keys", [("kid", Link("https://x/k", "k1")), ("alg", "ES256")]) == (
        '<section>\n<h2>Keys</h2>\n<dl>\n<dt>kid</dt><dd><a href="https://x/k">k1</a></dd>\n'
        "<dt>alg</dt><dd>ES256</dd>\n</dl>\n</section>")


def test_links_and_sections() -> None:
    assert section("A & B", links([Link("https://x/a", "Rotate")])) == (
        '<section>\n<h2>A &amp; B</h2>\n<ul class="console-actions">\n<li><a href="https://x/a">Rotate</a></li>\n'
        "</ul>\n</section>")
