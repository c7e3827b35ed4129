"""console.resource_forms: a resource registered, changed or deleted as `authgate resources` does it; the forms'
fields read into the operation's input (a scope's text dropped when the form no longer holds it), the introspection
secret shown once, each refusal the command's sentence, each action its audit event."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from authgate.console.resource_forms import (
    get_delete,
    get_edit,
    get_new,
    post_delete,
    post_edit,
    post_new,
)
from authgate.errors import ApiError
from tests.unit.console.page_support import get, main_text, post, signed

ADMIN = signed("admin")
MCP = "https://mcp.example.com/mcp"
FORM = {"uri": MCP, "scopes": "mcp:read mcp:write", "tenants": "", "name": "Files <x>", "description": "",
        "scope_descriptions": "mcp:read=Read your files\nmcp:write=Change your files", "may_delegate_to": ""}


@pytest.fixture
def registered(aws: None) -> None:
    post_new(post("resources/new", FORM), ADMIN)


def test_the_register_form_says_what_each_field_takes(aws: None) -> None:
    answer = get_new(get("resources/new"), ADMIN)
    assert main_text(answer) == (
        "Register a resource Resource URI an absolute https URI, the aud of its tokens (RFC 8707) Scopes "
        'space-separated: "mcp:read mcp:write" Tenants comma-separated tenants that may use it; empty: every tenant '
        'Name its name on the consent page, e.g. "Files" (empty: its URI) Description what it holds, one sentence '
        "under its name on the consent page What each scope allows one SCOPE=TEXT a line: mcp:read=Read your files "
        "(a scope without one is shown by its name) May delegate to the resources its server may exchange its "
        "tokens for (RFC 8693), one URI a line Register Cancel")
    with pytest.raises(ApiError) as auditor:
        get_new(get("resources/new"), signed("auditor"))
    assert (auditor.value.code, auditor.value.detail) == ("operator_forbidden", "Your roles (auditor) do not allow this.")


def test_a_registration_shows_the_introspection_secret_once(aws: None,
                                                            audit_events: Callable[[], list[dict[str, Any]]]) -> None:
    from authgate.administration.resources import get as resource

    answer = post_new(post("resources/new", FORM), ADMIN)
    stored = resource(MCP)
    assert stored is not None
    assert (stored.scopes, stored.name, stored.scope_descriptions) == (
        ("mcp:read", "mcp:write"), "Files <x>", (("mcp:read", "Read your files"), ("mcp:write", "Change your files")))
    client = stored.introspection_client_id
    found = re.search(r"<dt>Client secret</dt><dd>([^<]+)</dd>", str(answer.body))
    assert found is not None
    assert main_text(answer) == (
        f"Registered: {MCP} Done: resource {MCP} registered, with its introspection client {client}. Introspection "
        f"credentials Client id {client} Client secret {found.group(1)} The secret is shown once and stored only as "
        f"a hash: keep it now (POST /oauth/introspect). Open {MCP}")
    (event,) = audit_events()
    assert (event["action"], event["tenant"], event["target"], event["details"]) == (
        "resource.created", "", {"type": "resource", "id": MCP},
        {"via": "console", "console_action": "resources.create", "roles": "admin", "scopes": "mcp:read mcp:write",
         "tenants": "all", "introspection_client_id": client})


def test_the_change_form_holds_the_resource_escaped(registered: None) -> None:
    body = str(get_edit(get("resource/edit", [("uri", MCP)]), ADMIN).body)
    assert 'name="name" value="Files &lt;x&gt;"' in body
    assert ('spellcheck="false">mcp:read=Read your files\nmcp:write=Change your files</textarea>') in body
    assert f'<input type="hidden" name="uri" value="{MCP}">' in body


def test_a_change_drops_the_text_of_a_scope_the_form_no_longer_holds(registered: None) -> None:
    from authgate.administration.resources import get as resource

    answer = post_edit(post("resource/edit", {**FORM, "name": "Files", "scope_descriptions": "mcp:read=Read them"}),
                       ADMIN)
    assert main_text(answer) == f"Changed: {MCP} Done: resource {MCP} changed. Back to {MCP}"
    stored = resource(MCP)
    assert stored is not None and (stored.name, stored.scope_descriptions) == ("Files", (("mcp:read", "Read them"),))


@pytest.mark.parametrize(("fields", "code", "message", "reason"), [
    ({"authorization_details_type": "payment"}, "invalid_request",
     "--authorization-details-type and --schema go together", "invalid_input"),
    # The 404 page, and the failure recorded as a deletion's is (the command records it too, by its exit status).
    ({"uri": "https://other.example/api"}, "not_found", "There is no resource 'https://other.example/api'.",
     "unknown_resource"),
    ({"uri": ""}, "invalid_request", "Name the resource with uri.", None),  # no resource named: nothing acted on
])
def test_a_change_refused_says_why(registered: None, audit_events: Callable[[], list[dict[str, Any]]],
                                   fields: dict[str, str], code: str, message: str, reason: str | None) -> None:
    with pytest.raises(ApiError) as refused:
        post_edit(post("resource/edit", {**FORM, **fields}), ADMIN)
    assert (refused.value.code, refused.value.detail) == (code, message)
    assert [(e["action"], e["outcome"], e["reason"]) for e in audit_events()] == (
        [("resource.changed", "failure", reason)] if reason else [])


def test_a_deletion_is_confirmed_then_said(registered: None) -> None:
    from authgate.administration.resources import get as resource

    stored = resource(MCP)
    assert stored is not None
    asked = get_delete(get("resource/delete", [("uri", MCP)]), ADMIN)
    assert main_text(asked) == (
        f"Delete {MCP}? The resource and its introspection client {stored.introspection_client_id} are removed: no "
        "token is issued for it any more, and tokens already issued for it expire on their own. Delete Cancel")
    done = post_delete(post("resource/delete", {"uri": MCP}), ADMIN)
    assert main_text(done).startswith(f"Deleted: {MCP} Done: resource {MCP} deleted")
    assert resource(MCP) is None
    with pytest.raises(ApiError) as gone:
        get_delete(get("resource/delete", [("uri", MCP)]), ADMIN)
    assert (gone.value.code, gone.value.detail) == ("not_found", f"There is no resource {MCP!r}.")
