"""console.sections: the navigation's one table, in the console's order, each entry a page the router has and an
action the roles know."""

from __future__ import annotations

from authgate.console.routes import PAGES
from authgate.console.sections import SECTIONS
from authgate.operators import roles


def test_the_sections_in_the_consoles_order() -> None:
    assert [(s.page, s.label) for s in SECTIONS] == [
        ("", "Home"), ("people", "People"), ("clients", "Clients"), ("resources", "Resources"), ("tenants", "Tenants"),
        ("idps", "Identity providers"), ("keys", "Keys"), ("events", "Events"), ("operators", "Operators")]


def test_each_section_opens_a_page_the_router_has_by_an_action_the_roles_know() -> None:
    assert [s.page for s in SECTIONS if (s.page, "GET") not in PAGES] == []
    assert [s.action for s in SECTIONS if s.action not in roles.ACTIONS] == []
    # The home page lists every section but itself, each saying what it is for.
    assert [s.page for s in SECTIONS if not s.what] == [""]


def test_what_each_role_is_offered() -> None:
    def offered(held: roles.Roles) -> list[str]:
        return [s.label for s in SECTIONS if roles.reach(held, s.action).anywhere]

    assert offered((("owner", ()),)) == [s.label for s in SECTIONS]
    assert offered((("admin", ()),)) == ["Home", "Clients", "Resources", "Tenants", "Identity providers", "Keys"]
    assert offered((("auditor", ()),)) == [s.label for s in SECTIONS]
    assert offered((("support", ("acme",)),)) == ["Home", "People"]
