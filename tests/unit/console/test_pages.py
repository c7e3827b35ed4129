"""The parts every console page is built of (console.pages): what they write, escaped where it is written."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

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


def test_a_query_parameter_is_given_once_within_its_bound() -> None:
    from authgate.console.pages import query_value
    from authgate.errors import ApiError
    from tests.unit.console.page_support import get

    request = get("people", [("tenant", "acme"), ("q", "a"), ("q", "b"), ("long", "x" * 65), ("ctl", "a\x1fb"),
                              ("del", "a\x7fb"), ("c1", "a\x85b")])
    assert (query_value(request, "tenant", 64), query_value(request, "absent")) == ("acme", "")
    for name, said in (("q", "The q parameter is repeated."),
                       ("long", "The long parameter is too long or holds control characters."),
                       ("ctl", "The ctl parameter is too long or holds control characters."),
                       ("del", "The del parameter is too long or holds control characters."),
                       ("c1", "The c1 parameter is too long or holds control characters.")):
        with pytest.raises(ApiError) as refused:
            query_value(request, name, 64)
        assert (refused.value.code, refused.value.detail) == ("invalid_request", said)


def test_a_time_in_words() -> None:
    from authgate.console.pages import when

    assert (when(1_750_000_000), when(0)) == ("2025-06-15 15:06:40 UTC", "never")


def test_a_refusal_is_the_403_and_its_event(audit_events: Callable[[], list[dict[str, Any]]]) -> None:
    from authgate.console.pages import allow, allow_somewhere
    from authgate.errors import ApiError
    from tests.unit.console.page_support import signed

    allow(signed("support", "acme"), "people.view", "acme")
    allow_somewhere(signed("support", "acme"), "people.find")
    assert audit_events() == []
    with pytest.raises(ApiError) as refused:
        allow(signed("support", "acme"), "people.view", "globex")
    assert (refused.value.code, refused.value.status, refused.value.detail, refused.value.internal) == (
        "operator_forbidden", 403, "Your roles (support (acme)) do not allow this in tenant globex.",
        "operator=olivia action=people.view tenant=globex")
    with pytest.raises(ApiError) as nowhere:
        allow_somewhere(signed("admin"), "people.find")
    assert nowhere.value.detail == "Your roles (admin) do not allow this."
    # Where the request came from is the request's (audit.bind), none here.
    assert [{k: v for k, v in e.items() if k not in ("id", "time", "source_ip", "user_agent", "request_id")}
            for e in audit_events()] == [
        {"tenant": "globex", "actor": {"type": "operator", "id": "olivia", "principal": "console:usr_olivia"},
         "action": "console.refused", "target": {"type": "tenant", "id": "globex"}, "outcome": "failure",
         "reason": "role",
         "details": {"console_action": "people.view", "roles": "support (acme)"}},
        {"tenant": "", "actor": {"type": "operator", "id": "olivia", "principal": "console:usr_olivia"},
         "action": "console.refused", "target": {"type": "tenant", "id": "-"}, "outcome": "failure",
         "reason": "role",
         "details": {"console_action": "people.find", "roles": "admin"}}]


def test_the_tenants_offered_are_those_the_roles_reach(aws: None) -> None:
    from authgate.console.pages import chosen_tenant
    from authgate.errors import ApiError
    from tests.unit.console.page_support import get, signed, tenants

    tenants("acme", "globex", "initech")
    assert chosen_tenant(get("people"), signed("owner"), "people.find") == (["acme", "globex", "initech"], "acme")
    assert chosen_tenant(get("people", [("tenant", "initech")]), signed("support", "initech", "globex"),
                         "people.find") == (["globex", "initech"], "initech")
    with pytest.raises(ApiError) as missing:
        chosen_tenant(get("people", [("tenant", "nowhere")]), signed("owner"), "people.find")
    assert (missing.value.code, missing.value.detail) == ("not_found", "There is no tenant 'nowhere'.")


def test_a_page_is_the_shell_of_who_is_signed_in_with_the_sections_they_reach() -> None:
    from authgate.console.pages import page
    from tests.functional.console_support import CONSOLE_PAGE_HEADERS
    from tests.unit.console.page_support import get, main_text, signed, text

    answer = page(get("people"), signed("support", "acme", username="<i>sam</i>"), "People of <acme>", "<p>x</p>",
                  current="people")
    assert (answer.status, answer.headers) == (200, CONSOLE_PAGE_HEADERS)
    (binding,) = answer.multi_headers["Set-Cookie"]
    assert binding.startswith("authgate_binding=") and binding.endswith(
        "; HttpOnly; SameSite=Strict; Path=/; Max-Age=2592000")
    body = str(answer.body)
    assert "<title>People of &lt;acme&gt; · authgate console</title>" in body
    assert text(body.split("<body", 1)[1].split("<main", 1)[0]) == (
        'class="console"> Skip to the content authgate console Home People Signed in as <i>sam</i> (support (acme)) '
        "Sign out")
    assert '<a href="http://127.0.0.1:3000/console/people" aria-current="page">People</a>' in body
    assert "<i>sam" not in body
    assert main_text(answer) == "People of <acme> x"
