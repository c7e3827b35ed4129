"""console.resources: the resources tokens are issued for (the charges API first) and one resource's page: its
scopes and what each allows, its tenants, delegation targets and authorization_details types, escaped; the actions for
who may change resources; `resources.view` judged before anything is read."""

from __future__ import annotations

import pytest

from authgate.console.resources import get_resource, get_resources
from authgate.errors import ApiError
from tests.unit.console.page_support import TIMES, get, main_text, signed

ADMIN = signed("admin")
MCP = "https://mcp.example.com/mcp"


@pytest.fixture
def registered(aws: None) -> None:
    """Two resources: one of every detail (hostile text in its words), and a bare one."""
    from authgate.resources.model import Resource
    from authgate.stores.resources import ResourceStore

    ResourceStore().create(Resource(
        MCP, ("mcp:read", "mcp:write"), ("acme", "globex"), "mcp-introspect", TIMES, "Files <x>",
        "Your <b>files</b>", (("mcp:read", "Read <your> files"),), ("https://api.example/v1",),
        (("file_access", '{"type": "object", "title": "<t>"}'),)))
    ResourceStore().create(Resource("https://api.example/v1", ("api:read",), created_at=TIMES))


def test_the_list_is_the_charges_api_then_each_resource(registered: None) -> None:
    answer = get_resources(get("resources"), ADMIN)
    assert main_text(answer) == (
        "Resources Register a resource 3 resources Resource Name Scopes Tenants Introspection client "
        "http://127.0.0.1:3000/charges Charges API charges:read charges:write charges:refund all (built in) "
        "https://api.example/v1 - api:read all - "
        f"{MCP} Files <x> mcp:read mcp:write acme, globex mcp-introspect")
    body = str(answer.body)
    assert "Files <x>" not in body and "Files &lt;x&gt;" in body
    assert f'<a href="http://127.0.0.1:3000/console/resource?uri=https%3A%2F%2Fmcp.example.com%2Fmcp">{MCP}</a>' in body
    assert main_text(get_resources(get("resources"), signed("auditor"))).startswith("Resources 3 resources ")


def test_a_resources_page_says_everything_but_a_secret(registered: None) -> None:
    answer = get_resource(get("resource", [("uri", MCP)]), ADMIN)
    assert main_text(answer) == (
        f"Files <x> Resource Resource {MCP} Name Files <x> Description Your <b>files</b> Tenants acme, globex "
        "Introspection client mcp-introspect May delegate to https://api.example/v1 Registered 2025-06-15 15:06:40 UTC "
        "Actions Change Delete Scopes mcp:read Read <your> files mcp:write (shown by its name) "
        'Authorization details types file_access {"type": "object", "title": "<t>"}')
    body = str(answer.body)
    assert "<b>files" not in body and "<your>" not in body and '"<t>"' not in body
    bare = main_text(get_resource(get("resource", [("uri", "https://api.example/v1")]), signed("auditor")))
    assert bare == (
        "https://api.example/v1 Resource Resource https://api.example/v1 Name - Description - Tenants all "
        "Introspection client - May delegate to - Registered 2025-06-15 15:06:40 UTC Scopes api:read (shown by its name) "
        "Authorization details types None of its own.")


@pytest.mark.parametrize(("query", "code", "detail"), [
    ([], "invalid_request", "Name the resource with uri."),
    ([("uri", "https://nowhere.example/" + "x" * 300)], "not_found",
     "There is no resource " + repr(("https://nowhere.example/" + "x" * 300)[:200]) + "."),
    ([("uri", "x" * 2001)], "invalid_request", "The uri parameter is too long or holds control characters."),
], ids=["none", "unknown", "long"])
def test_a_resource_that_is_not_named_or_not_there(registered: None, query: list[tuple[str, str]], code: str,
                                                    detail: str) -> None:
    with pytest.raises(ApiError) as refused:
        get_resource(get("resource", query), ADMIN)
    assert (refused.value.code, refused.value.detail) == (code, detail)


def test_support_sees_no_resource_not_even_which_exist(registered: None) -> None:
    for ask in (lambda: get_resources(get("resources"), signed("support", "acme")),
                lambda: get_resource(get("resource", [("uri", "https://nowhere.example")]), signed("support", "acme"))):
        with pytest.raises(ApiError) as refused:
            ask()
        assert (refused.value.code, refused.value.detail) == (
            "operator_forbidden", "Your roles (support (acme)) do not allow this.")
