"""The console's resources pages (docs/console.md, "Resources and signing keys"): the list, one resource, and
register, change, delete: the operation `authgate resources` runs (authgate.administration.resources), with its
checks and its sentences; `resources.*` judged for no tenant before anything is read, whatever the URL or a
replayed form says.
"""

from __future__ import annotations

import io
import re
from typing import Any
from urllib.parse import quote, urlencode

import pytest

from authgate.clock import ManualClock
from tests.functional.authorize_support import headers_of, page_of
from tests.functional.console_support import (
    BAR,
    CONSOLE_PAGE_HEADERS,
    OLIVIA,
    ORIGIN,
    assert_console_error_page,
    console_event,
    grant,
    opened,
    operator_session,
    page_headers,
    posted,
    shown,
    whole,
)

Invoke = Any
MCP = "https://mcp.example.com/mcp"
OWNER_BAR = BAR.format(who="olivia (owner)")


def form_of(result: dict[str, Any]) -> dict[str, str]:
    """The fields a page's form posts: its hidden fields, inputs and textareas as filled."""
    body = result["body"].split('<main id="content"', 1)[1]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', body))
    fields.update(re.findall(r'<input id="[^"]+" name="([^"]+)" value="([^"]*)"', body))
    fields.update(re.findall(r'<textarea id="[^"]+" name="([^"]+)"[^>]*>([^<]*)</textarea>', body))
    import html

    return {k: html.unescape(v) for k, v in fields.items()}


def register(invoke: Invoke, cookie: str, **fields: str) -> dict[str, Any]:
    asked, jar = opened(invoke, cookie, "/console/resources/new")
    return posted(invoke, jar, "/console/resources/new", {**form_of(asked), **fields})


def cli(*argv: str) -> tuple[int, str, str]:
    """`authgate resources ARGV` on this stack: exit status, stdout, stderr."""
    import contextlib

    from authgate_cli.main import build_parser

    args = build_parser(["resources"]).parse_args(["resources", *argv])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        from authgate_cli.admin.arguments import InvalidInput
        from authgate_cli.admin.resources import ACTIONS, _validate

        try:
            _validate(args)
        except InvalidInput as exc:  # as _run prints it
            return 2, "", f"authgate resources: {exc}\n"
        status = ACTIONS[args.resources_command](args, out)
    return status, out.getvalue(), err.getvalue()


def test_olivia_lists_the_resources_and_opens_one(demo: Any, invoke: Invoke, clock: ManualClock) -> None:
    from authgate.administration.resources import Wording, create

    created = create(MCP, "mcp:read mcp:write", "demo", Wording("Files", "The files of your team.",
                                                                 ["mcp:read=Read your files"]), local=True)
    cookie = operator_session()
    listing, _ = opened(invoke, cookie, "/console/resources")
    client = created.resource.introspection_client_id
    assert shown(listing) == (
        f"{OWNER_BAR} Resources Register a resource 2 resources Resource Name Scopes Tenants Introspection client "
        "http://127.0.0.1:3000/charges Charges API charges:read charges:write charges:refund all (built in) "
        f"{MCP} Files mcp:read mcp:write demo {client}")
    assert f'<a href="http://127.0.0.1:3000/console/resource?uri={quote(MCP, safe="")}">{MCP}</a>' in listing["body"]
    one, _ = opened(invoke, cookie, "/console/resource", urlencode({"uri": MCP}))
    assert shown(one) == (
        f"{OWNER_BAR} Files Resource Resource {MCP} Name Files Description The files of your team. Tenants demo "
        f"Introspection client {client} May delegate to - Registered 2025-06-15 15:06:40 UTC Actions Change Delete "
        "Scopes mcp:read Read your files mcp:write (shown by its name) Authorization details types None of its own.")
    assert created.secret is not None and created.secret not in one["body"] + listing["body"]


def test_olivia_registers_a_resource_and_sees_its_secret_once(demo: Any, invoke: Invoke,
                                                              audit_events: Any) -> None:
    from authgate.stores.clients import ClientStore
    from authgate.stores.resources import ResourceStore

    cookie = operator_session()
    asked, _ = opened(invoke, cookie, "/console/resources/new")
    assert shown(asked) == (
        f"{OWNER_BAR} Register a resource Resource URI an absolute https URI, the aud of its tokens (RFC 8707) "
        'Scopes space-separated: "mcp:read mcp:write" Tenants comma-separated tenants that may use it; empty: every '
        'tenant Name its name on the consent page, e.g. "Files" (empty: its URI) Description what it holds, one '
        "sentence under its name on the consent page What each scope allows one SCOPE=TEXT a line: mcp:read=Read "
        "your files (a scope without one is shown by its name) May delegate to the resources its server may exchange "
        "its tokens for (RFC 8693), one URI a line Register Cancel")
    assert ResourceStore().get(MCP) is None
    done = register(invoke, cookie, uri=MCP, scopes="mcp:read", tenants="demo, acme", name="Files",
                    scope_descriptions="mcp:read=Read your files")
    assert done["statusCode"] == 200 and page_headers(done) == CONSOLE_PAGE_HEADERS
    assert headers_of(done)["Cache-Control"] == "no-store"
    resource = ResourceStore().get(MCP)
    assert resource is not None and (resource.scopes, resource.tenants, resource.name) == (
        ("mcp:read",), ("demo", "acme"), "Files")
    client_id = resource.introspection_client_id
    secret = re.search(r"Client secret</dt><dd>([^<]+)</dd>", done["body"])
    assert secret is not None
    assert page_of(done).text() == (
        f"{OWNER_BAR} Registered: {MCP} Done: resource {MCP} registered, with its introspection client {client_id}. "
        f"Introspection credentials Client id {client_id} Client secret {secret.group(1)} The secret is shown once "
        "and stored only as a hash: keep it now (POST /oauth/introspect). "
        f"Open {MCP}")
    from authgate.clients.model import client_secret_matches

    assert client_secret_matches(ClientStore().get(client_id), secret.group(1))
    # Never again: not on the resource's page, nor in any audit event.
    again, _ = opened(invoke, cookie, "/console/resource", urlencode({"uri": MCP}))
    assert secret.group(1) not in again["body"]
    assert whole(audit_events(), "resource.created") == {
        "tenant": "", "actor": OLIVIA, "action": "resource.created", "target": {"type": "resource", "id": MCP},
        "outcome": "success", **ORIGIN,
        "details": {"via": "console", "console_action": "resources.create", "roles": "owner", "scopes": "mcp:read",
                    "tenants": "demo,acme", "introspection_client_id": client_id}}
    assert secret.group(1) not in str(audit_events())


@pytest.mark.parametrize(("fields", "cli_args", "said"), [
    ({"uri": "http://mcp.example.com/mcp", "scopes": "mcp:read"}, ("http://mcp.example.com/mcp", "--scopes", "mcp:read"),
     "resource 'http://mcp.example.com/mcp' must be https (http only on 127.0.0.1 or localhost, for the local stack)"),
    ({"uri": MCP, "scopes": 'a"b'}, (MCP, "--scopes", 'a"b'),
     "--scopes 'a\"b' must be scope tokens separated by single spaces (RFC 6749 3.3)"),
    ({"uri": MCP, "scopes": "mcp:read", "tenants": "nosuch"}, (MCP, "--scopes", "mcp:read", "--tenants", "nosuch"),
     "tenant 'nosuch' does not exist here (see `authgate tenants list`)"),
    ({"uri": MCP, "scopes": "mcp:read", "name": "Files\x1b[31m"}, (MCP, "--scopes", "mcp:read", "--name",
                                                                   "Files\x1b[31m"),
     "--name 'Files\\x1b[31m' contains the control character U+001B"),
    ({"uri": "http://127.0.0.1:3000/charges", "scopes": "x"}, ("http://127.0.0.1:3000/charges", "--scopes", "x"),
     "http://127.0.0.1:3000/charges is the charges API, built in: it needs no registration"),
])
def test_a_refused_registration_says_what_the_command_says_and_writes_nothing(
        demo: Any, invoke: Invoke, monkeypatch: pytest.MonkeyPatch, audit_events: Any, fields: dict[str, str],
        cli_args: tuple[str, ...], said: str) -> None:
    from authgate.stores.resources import ResourceStore

    monkeypatch.setenv("AUTHGATE_ISSUER", "http://127.0.0.1:3000")
    before = sorted(r.resource for r in ResourceStore().list())
    assert_console_error_page(register(invoke, operator_session(), **fields), "invalid_request", said, 400)
    assert sorted(r.resource for r in ResourceStore().list()) == before
    assert whole(audit_events(), "resource.created") == {
        "tenant": "", "actor": OLIVIA, "action": "resource.created",
        "target": {"type": "resource", "id": fields["uri"]}, "outcome": "failure", "reason": "invalid_input",
        **ORIGIN, "details": {"via": "console", "console_action": "resources.create", "roles": "owner"}}
    assert cli("create", *cli_args) == (2, "", f"authgate resources: {said}\n")


def test_registering_a_uri_twice_is_refused_as_the_command_refuses_it(demo: Any, invoke: Invoke) -> None:
    cookie = operator_session()
    assert register(invoke, cookie, uri=MCP, scopes="mcp:read")["statusCode"] == 200
    said = f"resource {MCP!r} is already registered"
    assert_console_error_page(register(invoke, cookie, uri=MCP, scopes="mcp:read"), "invalid_request", said, 400)
    assert cli("create", MCP, "--scopes", "mcp:read") == (1, "", f"authgate resources: {said}\n")


@pytest.mark.slow  # about 0.65 s: two registrations, five posts
def test_olivia_changes_a_resource_with_the_fields_the_command_changes(demo: Any, invoke: Invoke,
                                                                       audit_events: Any) -> None:
    from authgate.administration.resources import Wording, create
    from authgate.stores.resources import ResourceStore

    create(MCP, "mcp:read mcp:write", "demo", Wording("Files", "", ["mcp:read=Read", "mcp:write=Write"]), local=True)
    create("https://other.example.com/api", "other:read", local=True)
    cookie = operator_session()
    asked, jar = opened(invoke, cookie, "/console/resource/edit", urlencode({"uri": MCP}))
    assert shown(asked).startswith(f"{OWNER_BAR} Change {MCP} Scopes")
    filled = form_of(asked)
    assert {k: v for k, v in filled.items() if k not in ("nonce", "csrf")} == {
        "uri": MCP, "scopes": "mcp:read mcp:write", "tenants": "demo", "name": "Files", "description": "",
        "scope_descriptions": "mcp:read=Read\nmcp:write=Write", "may_delegate_to": "",
        "authorization_details_type": "", "schema": "", "remove_authorization_details_type": ""}
    changed = posted(invoke, jar, "/console/resource/edit", {
        **filled, "scopes": "mcp:read mcp:admin", "tenants": "", "name": "", "description": "Your files.",
        "scope_descriptions": "mcp:admin=Rule", "may_delegate_to": "https://other.example.com/api",
        "authorization_details_type": "file_access", "schema": '{"type": "object"}'})
    assert shown(changed) == f"{OWNER_BAR} Changed: {MCP} Done: resource {MCP} changed. Back to {MCP}"
    resource = ResourceStore().get(MCP)
    assert resource is not None
    assert (resource.scopes, resource.tenants, resource.name, resource.description, resource.scope_descriptions,
            resource.may_delegate_to, resource.authorization_details_types) == (
        ("mcp:read", "mcp:admin"), (), "", "Your files.", (("mcp:admin", "Rule"),),
        ("https://other.example.com/api",), (("file_access", '{"type":"object"}'),))
    event = whole(audit_events(), "resource.changed")
    assert (event["outcome"], event["target"], event["details"]) == ("success", {"type": "resource", "id": MCP}, {
        "via": "console", "console_action": "resources.update", "roles": "owner", "scopes": "mcp:read mcp:admin",
        "tenants": "all", "introspection_client_id": resource.introspection_client_id})
    # A refusal is the command's sentence, and changes nothing.
    again, jar = opened(invoke, cookie, "/console/resource/edit", urlencode({"uri": MCP}))
    assert_console_error_page(posted(invoke, jar, "/console/resource/edit", {
        **form_of(again), "remove_authorization_details_type": "nosuch"}), "invalid_request",
        "the resource has no authorization details type 'nosuch'", 400)
    assert_console_error_page(posted(invoke, jar, "/console/resource/edit", {
        **form_of(again), "may_delegate_to": MCP}), "invalid_request", "a resource cannot delegate to itself", 400)
    assert_console_error_page(posted(invoke, jar, "/console/resource/edit", {
        **form_of(again), "authorization_details_type": "x", "schema": "{"}), "invalid_request",
        "the schema is not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)", 400)
    assert ResourceStore().get(MCP) == resource
    assert cli("update", MCP, "--remove-authorization-details-type", "nosuch") == (
        2, "", "authgate resources: the resource has no authorization details type 'nosuch'\n")


def test_olivia_deletes_a_resource_after_the_confirmation(demo: Any, invoke: Invoke, audit_events: Any) -> None:
    from authgate.administration.resources import create
    from authgate.stores.clients import ClientStore
    from authgate.stores.resources import ResourceStore

    client = create(MCP, "mcp:read", local=True).resource.introspection_client_id
    cookie = operator_session()
    asked, jar = opened(invoke, cookie, "/console/resource/delete", urlencode({"uri": MCP}))
    assert shown(asked) == (
        f"{OWNER_BAR} Delete {MCP}? The resource and its introspection client {client} are removed: no token is "
        "issued for it any more, and tokens already issued for it expire on their own. Delete Cancel")
    assert ResourceStore().get(MCP) is not None  # asking changes nothing
    done = posted(invoke, jar, "/console/resource/delete", page_of(asked).hidden())
    said = (f"resource {MCP} deleted, and its introspection client {client}; tokens already issued for it expire "
            "on their own")
    assert shown(done) == f"{OWNER_BAR} Deleted: {MCP} Done: {said}. Back to the resources"
    assert ResourceStore().get(MCP) is None and ClientStore().get(client) is None
    assert whole(audit_events(), "resource.deleted")["details"] == {
        "via": "console", "console_action": "resources.delete", "roles": "owner", "scopes": "mcp:read",
        "tenants": "all", "introspection_client_id": client}
    # The same form again: the resource is gone, as the command says.
    assert_console_error_page(posted(invoke, jar, "/console/resource/delete", page_of(asked).hidden()), "not_found",
                              f"There is no resource {MCP!r}.", 404)
    assert cli("delete", MCP) == (2, "", f"authgate resources: no resource {MCP!r} (see `authgate resources list`)\n")
    create(MCP, "mcp:read", local=True)
    status, out, _ = cli("delete", MCP)
    assert status == 0 and out.startswith(f"resource {MCP} deleted, and its introspection client rs-")


@pytest.mark.parametrize(("method", "path", "query"), [
    ("GET", "/console/resources", ""), ("GET", "/console/resource", urlencode({"uri": MCP})),
    ("GET", "/console/resources/new", ""), ("POST", "/console/resources/new", ""),
    ("GET", "/console/resource/edit", urlencode({"uri": MCP})), ("POST", "/console/resource/edit", ""),
    ("GET", "/console/resource/delete", urlencode({"uri": MCP})), ("POST", "/console/resource/delete", ""),
])
def test_support_gets_the_403_page_for_every_resource_page_and_form(demo: Any, invoke: Invoke, audit_events: Any,
                                                                    method: str, path: str, query: str) -> None:
    from authgate.administration.resources import create
    from authgate.stores.resources import ResourceStore

    create(MCP, "mcp:read", "demo", local=True)  # a resource of the tenant support is assigned
    grant("sam", "support", "demo")
    cookie = operator_session("sam", "usr_sam")
    if method == "GET":
        result = invoke("console", console_event("GET", path, query, cookie=cookie))
    else:  # a form of a page sam may open (the people page's sign-out), made to say what an owner's would
        people, jar = opened(invoke, cookie, "/console/people")
        result = posted(invoke, jar, path, {**page_of(people).hidden(), "uri": MCP, "scopes": "x"})
    assert_console_error_page(result, "operator_forbidden", "Your roles (support (demo)) do not allow this.", 403)
    assert ResourceStore().get(MCP) is not None and ResourceStore().get(MCP).scopes == ("mcp:read",)  # type: ignore[union-attr]
    (refused,) = [e for e in audit_events() if e["action"] == "console.refused"]
    assert (refused["tenant"], refused["details"]) == ("", {
        "console_action": "resources.view" if "resources" == path.rsplit("/", 1)[1] or path.endswith("resource")
        else "resources.change", "roles": "support (demo)"})


def test_an_auditor_sees_the_resources_and_changes_nothing(demo: Any, invoke: Invoke) -> None:
    from authgate.administration.resources import create
    from authgate.stores.resources import ResourceStore

    create(MCP, "mcp:read", local=True)
    grant("audrey", "auditor")
    cookie = operator_session("audrey", "usr_audrey")
    listing, _ = opened(invoke, cookie, "/console/resources")
    assert "Register a resource" not in shown(listing)
    one, _ = opened(invoke, cookie, "/console/resource", urlencode({"uri": MCP}))
    assert "Actions" not in shown(one) and "Change" not in shown(one)
    home, jar = opened(invoke, cookie, "/console")
    for path in ("/console/resources/new", "/console/resource/edit", "/console/resource/delete"):
        assert_console_error_page(posted(invoke, jar, path, {**page_of(home).hidden(), "uri": MCP, "scopes": "x"}),
                                  "operator_forbidden", "Your roles (auditor) do not allow this.", 403)
    assert ResourceStore().get(MCP) is not None
    grant("adam", "admin")
    admin = operator_session("adam", "usr_adam")
    assert "Register a resource" in shown(opened(invoke, admin, "/console/resources")[0])


def test_a_form_without_this_browsers_token_or_for_no_resource_is_refused(demo: Any, invoke: Invoke) -> None:
    from authgate.interaction.pages import STALE
    from authgate.stores.resources import ResourceStore

    cookie = operator_session()
    asked, jar = opened(invoke, cookie, "/console/resources/new")
    fields = {**form_of(asked), "uri": MCP, "scopes": "mcp:read"}
    stale = posted(invoke, cookie, "/console/resources/new", fields)  # the binding cookie is not sent
    assert_console_error_page(stale, "invalid_request", STALE, 400)
    assert ResourceStore().get(MCP) is None
    for path in ("/console/resource/edit", "/console/resource/delete"):
        assert_console_error_page(posted(invoke, jar, path, {**form_of(asked), "uri": ""}), "invalid_request",
                                  "Name the resource with uri.", 400)
    for path in ("/console/resource", "/console/resource/edit", "/console/resource/delete"):
        assert_console_error_page(invoke("console", console_event("GET", path, cookie=cookie)), "invalid_request",
                                  "Name the resource with uri.", 400)
        assert_console_error_page(invoke("console", console_event("GET", path, urlencode({"uri": MCP}),
                                                                  cookie=cookie)),
                                  "not_found", f"There is no resource {MCP!r}.", 404)
