"""The console's Clients pages (docs/console.md, "Clients"): a tenant's clients of every source, a client's whole
registration, and create, update, rotate-secret and delete taken by the one implementation `authgate clients` calls
(authgate.administration.clients), with its sentences and messages; `clients.view` and `clients.change` judged before
anything is read, whatever the URL or a replayed form says.
"""

from __future__ import annotations

import argparse
import io
from typing import Any
from urllib.parse import urlencode

import pytest

from authgate.clock import ManualClock
from tests.functional.authorize_support import headers_of, page_of
from tests.functional.console_support import (
    BAR,
    CONSOLE_PAGE_HEADERS,
    OLIVIA,
    ORIGIN,
    SUPPORT_BAR,
    assert_console_error_page,
    console_event,
    grant,
    operator_session,
    page_headers,
    whole,
)

Invoke = Any
FORM = "application/x-www-form-urlencoded"
OLIVIA_BAR = BAR.format(who="olivia (owner)")
DEMO_CLIENTS = (
    "demo-agent Demo payment agent confidential administrator ciba "
    "demo-fapi Demo FAPI 2.0 app confidential administrator authorization_code, refresh_token "
    "demo-legacy-a Demo legacy client A confidential administrator client_credentials "
    "demo-legacy-b Demo legacy client B confidential administrator client_credentials "
    "demo-partner Demo partner app confidential administrator authorization_code "
    "demo-reader Demo read-only service confidential administrator client_credentials "
    "demo-service Demo service confidential administrator client_credentials "
    "demo-spa Demo single-page app public administrator authorization_code, refresh_token "
    "demo-web Demo web app confidential administrator authorization_code, refresh_token "
    "staging-web Staging web app confidential administrator authorization_code, refresh_token, client_credentials")
TENANT_FORM = "Tenant acme demo operators Show its clients"


def get(invoke: Invoke, cookie: str, path: str, **query: str) -> dict[str, Any]:
    return invoke("console", console_event("GET", path, urlencode(query), cookie=cookie))


def shown(result: dict[str, Any]) -> str:
    """The whole text of a console page, once its status and headers are those of a page."""
    assert result["statusCode"] == 200, result["body"][:600]
    assert page_headers(result) == CONSOLE_PAGE_HEADERS
    return page_of(result).text()


def form_of(invoke: Invoke, cookie: str, path: str, **query: str) -> tuple[dict[str, str], str]:
    """A form page's hidden fields (its CSRF nonce and token), and the Cookie header that posts it."""
    result = get(invoke, cookie, path, **query)
    assert result["statusCode"] == 200, result["body"][:600]
    binding = [c.split(";", 1)[0] for c in result["multiValueHeaders"].get("Set-Cookie", [])]
    return page_of(result).hidden(), "; ".join([cookie, *binding])


def post(invoke: Invoke, jar: str, path: str, fields: dict[str, str]) -> dict[str, Any]:
    return invoke("console", console_event("POST", path, cookie=jar, body=urlencode(fields).encode(),
                                           content_type=FORM))


def cli(command: str, **values: Any) -> tuple[int, str, str]:
    """What `authgate clients COMMAND` prints (its action called as the command calls it): status, out, err."""
    import contextlib

    from authgate_cli.admin import client_actions

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        status = getattr(client_actions, command)(argparse.Namespace(json=False, **values), out)
    return status, out.getvalue(), err.getvalue()


NEW_CLIENT = {"client_id": "reports", "tenant": "demo", "type": "confidential", "name": "Reports",
              "redirect_uri": "https://reports.example/cb\nhttps://reports.example/cb2",
              "grant.authorization_code": "yes", "grant.refresh_token": "yes", "scope": "openid charges:read",
              "error_format": "problem", "auth_method": "", "jwks": "", "profile": "", "post_logout_redirect_uri": "",
              "backchannel_logout_uri": "", "resource_scopes": ""}


def test_olivia_lists_a_tenants_clients_of_every_source(demo: Any, invoke: Invoke, clock: ManualClock) -> None:
    from authgate.stores.clients import ClientStore

    cookie = operator_session()
    assert shown(get(invoke, cookie, "/console/clients", tenant="demo")) == (
        f"{OLIVIA_BAR} Clients {TENANT_FORM} Register a client Clients of demo Client id Name Type Source Grants "
        f"{DEMO_CLIENTS}")
    web = ClientStore().get("demo-web")
    assert web is not None
    store = ClientStore()
    store.put(web._replace(client_id="https://app.example/client.json", name="App", source="metadata_document",
                           refresh_at=int(clock()) + 3600, expires_at=int(clock()) + 7200))
    store.put(web._replace(client_id="dcr-1", name="Agent", source="registration", grant_types=("client_credentials",),
                           redirect_uris=(), registration_pool="demo", expires_at=int(clock()) + 86400))
    store.put(web._replace(client_id="dcr-gone", source="registration", expires_at=int(clock()) - 1))
    listed = shown(get(invoke, cookie, "/console/clients", tenant="demo"))
    assert ("dcr-1 Agent confidential dynamic registration client_credentials" in listed
            and "https://app.example/client.json App confidential metadata document authorization_code, "
                "refresh_token" in listed and "dcr-gone" not in listed)
    # Without a tenant: the first one.
    assert shown(get(invoke, cookie, "/console/clients")) == (
        f"{OLIVIA_BAR} Clients {TENANT_FORM} Register a client Clients of acme Client id Name Type Source Grants "
        "acme-service Acme service confidential administrator client_credentials")


def test_a_tenants_clients_come_a_page_at_a_time(demo: Any, invoke: Invoke) -> None:
    from authgate.stores.clients import ClientStore

    store = ClientStore()
    acme = store.get("acme-service")
    assert acme is not None
    for number in range(25):
        store.put(acme._replace(client_id=f"acme-{number:02}"))
    cookie = operator_session()
    seen: list[str] = []
    query = {"tenant": "acme"}
    for _ in range(3):
        result = get(invoke, cookie, "/console/clients", **query)
        page = page_of(result)
        seen += [link for link in _client_links(result["body"])]
        following = [a for a in _links(result["body"]) if "after=" in a]
        if not following:
            break
        assert "Next page" in shown(result)
        query = dict(item.split("=", 1) for item in following[0].split("?", 1)[1].split("&"))
        assert page.text().count("acme-") <= 20 + 2
    assert sorted(seen) == sorted([f"acme-{n:02}" for n in range(25)] + ["acme-service"])
    assert len(set(seen)) == 26


def _links(body: str) -> list[str]:
    import html
    import re

    return [html.unescape(href) for href in re.findall(r'href="([^"]+)"', body)]


def _client_links(body: str) -> list[str]:
    from urllib.parse import parse_qs, urlsplit

    return [parse_qs(urlsplit(link).query)["client_id"][0] for link in _links(body)
            if urlsplit(link).path == "/console/client"]


def test_a_clients_page_is_its_whole_registration_never_its_secret(demo: Any, invoke: Invoke,
                                                                    clock: ManualClock) -> None:
    from authgate.console.pages import when
    from authgate.stores.clients import ClientStore

    cookie = operator_session()
    web = ClientStore().get("demo-web")
    assert web is not None and web.secret_hash
    result = get(invoke, cookie, "/console/client", client_id="demo-web")
    assert shown(result) == (
        f"{OLIVIA_BAR} Client demo-web Source: administrator An administrator registered it (`authgate clients "
        "create`, or this console). Actions Change Rotate the secret Delete Registration client_id demo-web "
        "tenant_id demo environment local client_type confidential redirect_uris http://127.0.0.1:8765/callback "
        "grant_types authorization_code refresh_token scopes charges:read charges:write charges:refund openid "
        "profile email offline_access error_format problem requires_admin_approval no name Demo web app "
        f"created_at {when(web.created_at)} jwks - token_endpoint_auth_method client_secret_basic "
        "require_pushed_authorization_requests no profile - dpop_bound_access_tokens no source - refresh_at never "
        "expires_at never registration_pool - resource_scopes - post_logout_redirect_uris http://127.0.0.1:8765/ "
        "backchannel_logout_uri - backchannel_logout_session_required no id_token_signed_response_alg RS256 "
        "backchannel_token_delivery_mode - All clients of demo")
    assert web.secret_hash not in result["body"] and "secret_hash" not in result["body"]
    store = ClientStore()
    store.put(web._replace(client_id="https://app.example/client.json", source="metadata_document",
                           created_at=int(clock()), refresh_at=int(clock()) + 3600, expires_at=int(clock()) + 7200,
                           secret_hash=None))
    document = shown(get(invoke, cookie, "/console/client", client_id="https://app.example/client.json"))
    assert ("Source: metadata document Its registration is the Client ID Metadata Document at "
            "https://app.example/client.json, fetched on 2025-06-15 15:06:40 UTC and fetched again after "
            "2025-06-15 16:06:40 UTC. Deleting it drops the cached document: the next request naming it fetches it "
            "again.") in document
    store.put(web._replace(client_id="dcr-1", source="registration", registration_pool="demo",
                           created_at=int(clock()), expires_at=int(clock()) + 86400,
                           registration_token_hash="f" * 64))
    registered = get(invoke, cookie, "/console/client", client_id="dcr-1")
    assert ("Source: dynamic registration It registered itself through dynamic registration (RFC 7591) on "
            "2025-06-15 15:06:40 UTC, in the pool demo; unless someone signs in to it, its registration ends on "
            "2025-06-16 15:06:40 UTC. It holds a registration access token to read, change or delete its own "
            "registration; deleting it here ends that token too.") in shown(registered)
    assert "f" * 64 not in registered["body"]


def test_olivia_registers_a_confidential_client_and_sees_its_secret_once(
        demo: Any, invoke: Invoke, audit_events: Any) -> None:
    from authgate.clients.model import client_secret_matches
    from authgate.stores.clients import ClientStore

    cookie = operator_session()
    fields, jar = form_of(invoke, cookie, "/console/client-new", tenant="demo")
    answer = post(invoke, jar, "/console/client-new", {**fields, **NEW_CLIENT})
    text = shown(answer)
    secret = page_of(answer).body.split('<code class="secret">', 1)[1].split("</code>", 1)[0]
    assert text == (f"{OLIVIA_BAR} Registered: reports Done: client_id: reports. Client secret {secret} The secret "
                    "is shown once and stored only as a hash: keep it now. To reports")
    assert headers_of(answer)["Cache-Control"] == "no-store"
    client = ClientStore().get("reports")
    assert client is not None and client_secret_matches(client, secret)
    assert (client.tenant_id, client.name, client.redirect_uris, client.grant_types, client.scopes) == (
        "demo", "Reports", ("https://reports.example/cb", "https://reports.example/cb2"),
        ("authorization_code", "refresh_token"), ("openid", "charges:read"))
    # The answer again (a reload posts the same form): refused, nothing made, no secret.
    again = post(invoke, jar, "/console/client-new", {**fields, **NEW_CLIENT, "client_id": ""})
    assert_console_error_page(again, "invalid_request",
                              "This form was sent already, and its answer shown once; open the page again.", 400)
    assert secret not in again["body"] and [c.client_id for c in ClientStore().list()].count("reports") == 1
    assert secret not in shown(get(invoke, cookie, "/console/client", client_id="reports"))
    assert whole(audit_events(), "client.registered") == {
        "tenant": "demo", "actor": OLIVIA, "action": "client.registered", "target": {"type": "client", "id": "reports"},
        "outcome": "success", **ORIGIN, "details": {
            "via": "console", "console_action": "create", "roles": "owner", "source": "administrator",
            "client_name": "Reports", "client_type": "confidential",
            "redirect_uris": ["https://reports.example/cb", "https://reports.example/cb2"],
            "grant_types": ["authorization_code", "refresh_token"], "scopes": ["openid", "charges:read"],
            "token_endpoint_auth_method": ""}}
    # The command says the same of the same request: its id is taken now.
    assert cli("create_client", client_id="reports", tenant="demo", type="confidential", name=None, redirect_uri=[],
               grant=["client_credentials"], scope=[], error_format="problem", requires_admin_approval=False) == (
        1, "", "authgate clients: client 'reports' already exists\n")
    taken, jar = form_of(invoke, jar, "/console/client-new")
    assert_console_error_page(post(invoke, jar, "/console/client-new", {**taken, **NEW_CLIENT}), "invalid_request",
                              "client 'reports' already exists", 400)


def test_a_public_client_has_no_secret_to_show(demo: Any, invoke: Invoke) -> None:
    cookie = operator_session()
    fields, jar = form_of(invoke, cookie, "/console/client-new")
    answer = post(invoke, jar, "/console/client-new", {
        **fields, **NEW_CLIENT, "client_id": "", "type": "public", "name": "Phone app",
        "redirect_uri": "com.example.app:/cb"})
    text = shown(answer)
    assert text.startswith(f"{OLIVIA_BAR} Registered: ") and "Client secret" not in text
    client_id = text.split("Done: client_id: ", 1)[1].split(".", 1)[0]
    assert text == f"{OLIVIA_BAR} Registered: {client_id} Done: client_id: {client_id}. To {client_id}"


@pytest.mark.parametrize(("changed", "detail"), [
    ({"redirect_uri": "http://reports.example/cb"}, (
        "redirect URI 'http://reports.example/cb' must be https (plain http only on a loopback address such as "
        "http://127.0.0.1:PORT/..., RFC 8252 7.3) or a native app's private-use scheme such as "
        "com.example.app:/callback (RFC 8252 7.1): a code sent over plain http to another host can be read on the "
        "way (RFC 9700 2.1, 4.1)")),
    ({"grant.authorization_code": "", "grant.refresh_token": "", "grant.client_credentials": "yes"},
     ("--redirect-uri is only used by the authorization_code grant; add --grant authorization_code or drop the "
     "redirect URIs")),
    ({"scope": "charges:nothing"}, ("unknown scope 'charges:nothing'; known: charges:read charges:write charges:refund "
                                   "openid profile email offline_access")),
    ({"tenant": "nowhere"}, "tenant 'nowhere' does not exist here"),
    ({"client_id": "has space"}, ("--client-id 'has space' must be printable ASCII without spaces or control "
                                 "characters")),
    ({"type": "secret"}, "The type field must be one of confidential, public."),
    ({"tenant": "demo\n"}, "The tenant field is too long or holds control characters."),
])
def test_a_registration_the_command_refuses_is_refused_with_its_message(
        demo: Any, invoke: Invoke, audit_events: Any, changed: dict[str, str], detail: str) -> None:
    from authgate.stores.clients import ClientStore

    cookie = operator_session()
    fields, jar = form_of(invoke, cookie, "/console/client-new")
    result = post(invoke, jar, "/console/client-new", {**fields, **NEW_CLIENT, **changed})
    assert_console_error_page(result, "invalid_request", detail, 400)
    assert ClientStore().get("reports") is None
    # A refusal of the operation is its failure in the audit trail; a form the console cannot read is not asked.
    failed = [] if detail.startswith("The ") else [("failure", "invalid_input", changed.get("client_id", "reports"))]
    assert [(e["outcome"], e["reason"], e["target"]["id"]) for e in audit_events()
            if e["action"] == "client.registered"] == failed


def test_olivia_changes_a_client_as_the_command_does(demo: Any, invoke: Invoke, audit_events: Any) -> None:
    from authgate.stores.clients import ClientStore

    cookie = operator_session()
    form = get(invoke, cookie, "/console/client-edit", client_id="demo-web")
    assert shown(form).startswith(f"{OLIVIA_BAR} Change demo-web Name Shown on the consent page. Grants "
                                  "authorization_code refresh_token client_credentials password jwt-bearer "
                                  "device_code ciba Token endpoint authentication")
    values = {i["name"]: i.get("value") or "" for i in page_of(form).inputs if i.get("type") != "hidden"}
    assert values["name"] == "Demo web app"
    assert {name for name, i in ((i["name"], i) for i in page_of(form).inputs) if "checked" in i} == {
        "grant.authorization_code", "grant.refresh_token"}
    fields, jar = form_of(invoke, cookie, "/console/client-edit", client_id="demo-web")
    answer = post(invoke, jar, "/console/client-edit", {
        **fields, "name": "Web app", "grant.authorization_code": "yes", "require_par": "yes",
        "post_logout_redirect_uri": "https://web.example/bye", "backchannel_logout_uri": "https://web.example/bcl",
        "profile": "", "auth_method": "", "jwks": "", "resource_scopes": ""})
    said = ("client_id: demo-web updated (auth client_secret_basic, profile none, 0 keys, PAR required, resource "
            "grants none)")
    assert shown(answer) == f"{OLIVIA_BAR} Changed: demo-web Done: {said}. To demo-web"
    client = ClientStore().get("demo-web")
    assert client is not None and (client.name, client.grant_types, client.require_pushed_authorization_requests,
                                   client.post_logout_redirect_uris, client.backchannel_logout_uri) == (
        "Web app", ("authorization_code",), True, ("https://web.example/bye",), "https://web.example/bcl")
    assert cli("update_client", client_id="demo-web", name="Web app") == (0, said + "\n", "")
    assert whole(audit_events(), "client.changed") == {
        "tenant": "demo", "actor": OLIVIA, "action": "client.changed", "target": {"type": "client", "id": "demo-web"},
        "outcome": "success", **ORIGIN, "details": {
            "via": "console", "console_action": "update", "roles": "owner", "source": "administrator",
            "client_name": "Web app", "client_type": "confidential", "redirect_uris": ["http://127.0.0.1:8765/callback"],
            "grant_types": ["authorization_code"], "scopes": list(client.scopes), "token_endpoint_auth_method": "",
            "changed": ["grant_types", "name", "require_pushed_authorization_requests", "post_logout_redirect_uris",
                        "backchannel_logout_uri"]}}
    fields, jar = form_of(invoke, jar, "/console/client-edit", client_id="demo-web")
    assert_console_error_page(post(invoke, jar, "/console/client-edit", {**fields, "name": "Web"}), "invalid_request",
                              "give at least one --grant (authorization_code, refresh_token, client_credentials, "
                              "password, jwt-bearer)", 400)
    fields, jar = form_of(invoke, jar, "/console/client-edit", client_id="demo-web")
    assert_console_error_page(post(invoke, jar, "/console/client-edit", {
        **fields, "name": "Web", "grant.authorization_code": "yes", "profile": "fapi2"}), "invalid_request",
        "--profile fapi2 needs the client's public keys: give --jwks FILE|JSON (private_key_jwt, FAPI 2.0 5.3.2.1)",
        400)
    assert ClientStore().get("demo-web").name == "Web app"  # type: ignore[union-attr]


def _algorithms(body: str) -> list[str]:
    select = body.split('<select id="id_token_signed_response_alg"', 1)[1].split("</select>", 1)[0]
    return [o.split('"', 2)[1] + ("*" if " selected" in o.split(">", 1)[0] else "") for o in select.split("<option ")[1:]]


def test_the_id_token_algorithm_is_one_the_stack_offers_set_as_the_command_sets_it(
        demo: Any, invoke: Invoke, audit_events: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches
    from authgate.stores.clients import ClientStore

    monkeypatch.setenv("AUTHGATE_SIGNING_ALG", "ES256")  # an ES256 stack offers RS256 and ES256
    caches.reset()
    cookie = operator_session()
    new = get(invoke, cookie, "/console/client-new", tenant="demo")
    assert "ID token signing algorithm" in shown(new) and _algorithms(new["body"]) == ["*", "RS256", "ES256"]
    fields, jar = form_of(invoke, cookie, "/console/client-new", tenant="demo")
    answer = post(invoke, jar, "/console/client-new", {**fields, **NEW_CLIENT, "id_token_signed_response_alg": "ES256"})
    assert shown(answer).startswith(f"{OLIVIA_BAR} Registered: reports Done: client_id: reports. Client secret ")
    assert ClientStore().get("reports").id_token_signed_response_alg == "ES256"  # type: ignore[union-attr]
    edit = get(invoke, cookie, "/console/client-edit", client_id="reports")
    assert "Now: ES256; empty keeps it." in shown(edit) and _algorithms(edit["body"]) == ["", "RS256", "ES256*"]
    fields, jar = form_of(invoke, jar, "/console/client-edit", client_id="reports")
    answer = post(invoke, jar, "/console/client-edit", {**fields, "name": "Reports", "grant.authorization_code": "yes",
                                                        "grant.refresh_token": "yes",
                                                        "id_token_signed_response_alg": "RS256"})
    said = ("client_id: reports updated (auth client_secret_basic, profile none, 0 keys, PAR optional, resource "
            "grants none)")
    assert shown(answer) == f"{OLIVIA_BAR} Changed: reports Done: {said}. To reports"
    assert ClientStore().get("reports").id_token_signed_response_alg == "RS256"  # type: ignore[union-attr]
    assert whole(audit_events(), "client.changed")["details"]["changed"] == ["id_token_signed_response_alg"]
    # The command, asked the same, says the same.
    assert cli("update_client", client_id="reports", id_token_signed_response_alg="ES256") == (0, said + "\n", "")


@pytest.mark.parametrize("alg, why", [
    ("ES256", "--id-token-signed-response-alg must be one of RS256 (this stack's id_token_signing_alg_values_supported)"),
    ("none", ("--id-token-signed-response-alg none is refused: ID tokens of the authorization code flow are signed "
              "(OpenID Connect Core 3.1.3.7)")),
])
def test_an_id_token_algorithm_the_stack_does_not_offer_is_refused_with_the_commands_message(
        demo: Any, invoke: Invoke, audit_events: Any, alg: str, why: str) -> None:
    from authgate.stores.clients import ClientStore

    cookie = operator_session()
    fields, jar = form_of(invoke, cookie, "/console/client-new", tenant="demo")
    assert_console_error_page(post(invoke, jar, "/console/client-new", {
        **fields, **NEW_CLIENT, "id_token_signed_response_alg": alg}), "invalid_request", why, 400)
    assert ClientStore().get("reports") is None
    fields, jar = form_of(invoke, jar, "/console/client-edit", client_id="demo-web")
    assert_console_error_page(post(invoke, jar, "/console/client-edit", {
        **fields, "name": "Demo web app", "grant.authorization_code": "yes", "id_token_signed_response_alg": alg}),
        "invalid_request", why,
        400)
    assert ClientStore().get("demo-web").id_token_signed_response_alg == ""  # type: ignore[union-attr]
    assert cli("update_client", client_id="demo-web", id_token_signed_response_alg=alg) == (
        2, "", f"authgate clients: {why}\n")
    assert [(e["action"], e["outcome"], e["reason"]) for e in audit_events() if e["action"].startswith("client.")] \
        == [("client.registered", "failure", "invalid_input"), ("client.changed", "failure", "invalid_input")]


def test_olivia_rotates_a_secret_once_confirmed_and_sees_the_new_one_once(
        demo: Any, invoke: Invoke, audit_events: Any) -> None:
    from authgate.clients.model import client_secret_matches
    from authgate.stores.clients import ClientStore

    before = ClientStore().get("demo-service")
    cookie = operator_session()
    asked = get(invoke, cookie, "/console/client-act", client_id="demo-service", action="rotate-secret")
    assert shown(asked) == (f"{OLIVIA_BAR} Rotate the secret: demo-service? demo-service gets a new secret, shown once "
                            "on the next page; the old one stops working now. Rotate the secret Cancel")
    assert ClientStore().get("demo-service") == before  # asking changes nothing
    fields, jar = form_of(invoke, cookie, "/console/client-act", client_id="demo-service", action="rotate-secret")
    answer = post(invoke, jar, "/console/client-act", fields)
    secret = answer["body"].split('<code class="secret">', 1)[1].split("</code>", 1)[0]
    assert shown(answer) == (f"{OLIVIA_BAR} Rotate the secret: demo-service Done: client_id: demo-service. Client "
                             f"secret {secret} The old secret stopped working now. The new one is shown once: keep "
                             "it now. To demo-service")
    client = ClientStore().get("demo-service")
    assert client is not None and client_secret_matches(client, secret) and client.secret_hash != before.secret_hash  # type: ignore[union-attr]
    replayed = post(invoke, jar, "/console/client-act", fields)
    assert_console_error_page(replayed, "invalid_request",
                              "This form was sent already, and its answer shown once; open the page again.", 400)
    assert client_secret_matches(ClientStore().get("demo-service"), secret)
    assert whole(audit_events(), "client.secret_rotated") == {
        "tenant": "demo", "actor": OLIVIA, "action": "client.secret_rotated",
        "target": {"type": "client", "id": "demo-service"}, "outcome": "success", **ORIGIN,
        "details": {"via": "console", "console_action": "rotate-secret", "roles": "owner", "source": "administrator",
                    "client_name": "Demo service", "client_type": "confidential", "redirect_uris": [],
                    "grant_types": ["client_credentials"], "scopes": ["charges:read", "charges:write"],
                    "token_endpoint_auth_method": ""}}
    assert secret not in str(audit_events())
    public, jar = form_of(invoke, jar, "/console/client-act", client_id="demo-spa", action="rotate-secret")
    assert_console_error_page(post(invoke, jar, "/console/client-act", public), "invalid_request",
                              "client 'demo-spa' is public: it has no secret to rotate (RFC 6749 2.1)", 400)
    assert cli("rotate_secret", client_id="demo-spa") == (
        2, "", "authgate clients: client 'demo-spa' is public: it has no secret to rotate (RFC 6749 2.1)\n")


def test_olivia_deletes_a_client_but_not_a_resources_introspection_client(
        demo: Any, invoke: Invoke, audit_events: Any) -> None:
    import json

    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.resource_actions import create_resource

    cookie = operator_session()
    asked = get(invoke, cookie, "/console/client-act", client_id="demo-reader", action="delete")
    assert shown(asked) == (f"{OLIVIA_BAR} Delete: demo-reader? demo-reader is removed: its refresh tokens stop "
                            "working now, its access tokens within a minute. Delete Cancel")
    fields, jar = form_of(invoke, cookie, "/console/client-act", client_id="demo-reader", action="delete")
    assert shown(post(invoke, jar, "/console/client-act", fields)) == (
        f"{OLIVIA_BAR} Delete: demo-reader Done: client_id: demo-reader deleted. All clients of demo")
    assert ClientStore().get("demo-reader") is None
    assert whole(audit_events(), "client.deleted") == {
        "tenant": "demo", "actor": OLIVIA, "action": "client.deleted", "target": {"type": "client", "id": "demo-reader"},
        "outcome": "success", **ORIGIN, "details": {
            "via": "console", "console_action": "delete", "roles": "owner", "source": "administrator",
            "client_name": "Demo read-only service", "client_type": "confidential", "redirect_uris": [],
            "grant_types": ["client_credentials"], "scopes": ["charges:read"], "token_endpoint_auth_method": ""}}
    assert cli("delete_client", client_id="demo-legacy-a") == (0, "client_id: demo-legacy-a deleted\n", "")
    out = io.StringIO()
    assert create_resource(argparse.Namespace(resource="https://mcp.example/mcp", scopes="mcp:read", tenants=None,
                                              json=True, stack_name=None), out) == 0
    introspector = json.loads(out.getvalue())["introspection_client_id"]
    fields, jar = form_of(invoke, jar, "/console/client-act", client_id=introspector, action="delete")
    refused = (f"{introspector!r} is the introspection client of https://mcp.example/mcp; it goes with the resource "
               "(authgate resources delete https://mcp.example/mcp)")
    assert_console_error_page(post(invoke, jar, "/console/client-act", fields), "invalid_request", refused, 400)
    assert ClientStore().get(introspector, any_environment=True) is not None


def test_a_support_operator_opens_no_clients_page_nor_form_even_replaying_an_owners(
        demo: Any, invoke: Invoke, audit_events: Any) -> None:
    from authgate.stores.clients import ClientStore

    grant("sam", "support", "demo")
    sam = operator_session("sam", "usr_sam")
    home = get(invoke, sam, "/console")
    assert shown(home).startswith(f"{SUPPORT_BAR.format(who='sam (support (demo))')} Console You are sam")
    assert "Clients" not in shown(home)
    refused = "Your roles (support (demo)) do not allow this."
    for path, query in (("/console/clients", {}), ("/console/clients", {"tenant": "demo"}),
                        ("/console/client", {"client_id": "demo-web"}), ("/console/client-new", {"tenant": "demo"}),
                        ("/console/client-edit", {"client_id": "demo-web"}),
                        ("/console/client-act", {"client_id": "demo-web", "action": "rotate-secret"})):
        # A page of the tenant named in its query names it (console.pages.chosen_tenant).
        said = refused.replace("this.", "this in tenant demo.") if path == "/console/clients" and query else refused
        assert_console_error_page(get(invoke, sam, path, **query), "operator_forbidden", said, 403)
    owner = operator_session()
    before = {c.client_id: c for c in ClientStore().list()}
    # The owner's forms, replayed by sam exactly (the owner's binding cookie too), or with sam's own CSRF token.
    sams_token = {k: v for k, v in page_of(home).hidden().items()}
    sams_jar = f"{sam}; {headers_of(home)['Set-Cookie'].split(';', 1)[0]}"
    for path, query, more in (("/console/client-new", {"tenant": "demo"}, NEW_CLIENT),
                              ("/console/client-edit", {"client_id": "demo-web"},
                               {"name": "Taken", "grant.authorization_code": "yes"}),
                              ("/console/client-act", {"client_id": "demo-web", "action": "rotate-secret"}, {}),
                              ("/console/client-act", {"client_id": "demo-web", "action": "delete"}, {})):
        fields, owners_jar = form_of(invoke, owner, path, **query)
        replay_jar = owners_jar.replace(owner, sam)
        assert_console_error_page(post(invoke, replay_jar, path, {**fields, **more}), "operator_forbidden", refused,
                                  403)
        assert_console_error_page(post(invoke, sams_jar, path, {**fields, **more, **sams_token}),
                                  "operator_forbidden", refused, 403)
    assert {c.client_id: c for c in ClientStore().list()} == before
    events = [(e["action"], e["actor"]["id"], e["details"]["console_action"]) for e in audit_events()
              if e["action"].startswith(("console.", "client."))]
    assert events == [("console.refused", "sam", action) for action in
                      ("clients.view",) * 3 + ("clients.change",) * 3 + ("clients.change",) * 8]


def test_an_auditor_sees_the_pages_but_no_action_and_a_form_posted_anyway_changes_nothing(
        demo: Any, invoke: Invoke) -> None:
    from authgate.stores.clients import ClientStore

    grant("audrey", "auditor")
    audrey = operator_session("audrey", "usr_audrey")
    listed = shown(get(invoke, audrey, "/console/clients", tenant="demo"))
    assert listed == (f"{BAR.format(who='audrey (auditor)')} Clients {TENANT_FORM} Clients of demo Client id Name "
                      f"Type Source Grants {DEMO_CLIENTS}")
    page = shown(get(invoke, audrey, "/console/client", client_id="demo-web"))
    assert "Actions" not in page and page.startswith(f"{BAR.format(who='audrey (auditor)')} Client demo-web Source")
    refused = "Your roles (auditor) do not allow this."
    assert_console_error_page(get(invoke, audrey, "/console/client-new"), "operator_forbidden", refused, 403)
    assert_console_error_page(get(invoke, audrey, "/console/client-act", client_id="demo-web", action="delete"),
                              "operator_forbidden", refused, 403)
    home = get(invoke, audrey, "/console")
    jar = f"{audrey}; {headers_of(home)['Set-Cookie'].split(';', 1)[0]}"
    before = ClientStore().get("demo-web")
    forged = {**page_of(home).hidden(), "client_id": "demo-web", "action": "delete"}
    assert_console_error_page(post(invoke, jar, "/console/client-act", forged), "operator_forbidden", refused, 403)
    assert ClientStore().get("demo-web") == before


def test_an_admin_registers_and_changes_clients(demo: Any, invoke: Invoke) -> None:
    grant("adam", "admin")
    adam = operator_session("adam", "usr_adam")
    assert "Actions Change Rotate the secret Delete" in shown(get(invoke, adam, "/console/client", client_id="demo-web"))
    fields, jar = form_of(invoke, adam, "/console/client-new")
    assert "Done: client_id: reports." in shown(post(invoke, jar, "/console/client-new", {**fields, **NEW_CLIENT}))


@pytest.mark.parametrize(("path", "query", "status", "code", "detail"), [
    ("/console/client", {}, 400, "invalid_request", "Name the client with client_id."),
    ("/console/client", {"client_id": "nobody"}, 404, "not_found", "There is no client 'nobody'."),
    ("/console/clients", {"tenant": "nowhere"}, 404, "not_found", "There is no tenant 'nowhere'."),
    ("/console/client-act", {"client_id": "demo-web", "action": "burn"}, 400, "invalid_request",
     "There is no action 'burn': the actions are rotate-secret, delete."),
    ("/console/client-edit", {"client_id": "nobody"}, 404, "not_found", "There is no client 'nobody'."),
])
def test_a_page_asked_badly_is_the_console_error_page(demo: Any, invoke: Invoke, path: str, query: dict[str, str],
                                                      status: int, code: str, detail: str) -> None:
    assert_console_error_page(get(invoke, operator_session(), path, **query), code, detail, status)


def test_a_forged_or_stale_client_form_is_refused(demo: Any, invoke: Invoke) -> None:
    from authgate.stores.clients import ClientStore

    cookie = operator_session()
    fields, jar = form_of(invoke, cookie, "/console/client-act", client_id="demo-web", action="delete")
    assert_console_error_page(post(invoke, jar, "/console/client-act", {**fields, "csrf": "forged"}),
                              "invalid_request", "The form has expired or was altered. Open it again.", 400)
    assert_console_error_page(post(invoke, jar, "/console/client-act", {**fields, "client_id": "x" * 300}),
                              "invalid_request", "The client_id field is too long or holds control characters.", 400)
    assert ClientStore().get("demo-web") is not None
