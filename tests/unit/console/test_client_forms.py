"""console.client_forms: the Register and Change forms of a client, their fields read into what
`authgate clients create|update` is asked (administration.client_registration.Asked), the answer (a secret shown
once), and each refusal in the command's words."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from authgate.console.client_forms import get_edit, get_new, post_edit, post_new
from authgate.errors import ApiError
from tests.unit.console.page_support import get, main_text, post, signed, tenants

ADMIN = signed("admin")
WEB = {"client_id": "web", "tenant": "acme", "type": "confidential", "name": "Web <app>",
       "redirect_uri": " https://app.example/cb \n\nhttps://app.example/cb2\n", "grant.authorization_code": "yes",
       "grant.refresh_token": "yes", "scope": "openid  profile", "error_format": "problem"}


@pytest.fixture
def acme(aws: None) -> None:
    tenants("acme", "globex")


def _registered(acme: None) -> None:
    post_new(post("client-new", WEB), ADMIN)


def test_the_register_form_offers_the_tenants_and_a_clients_grants(acme: None) -> None:
    body = str(get_new(get("client-new", [("tenant", "globex")]), ADMIN).body)
    assert '<option value="globex" selected>globex</option>' in body and '<option value="acme">acme</option>' in body
    assert re.findall(r'name="grant\.([a-z_-]+)"', body) == [
        "authorization_code", "refresh_token", "client_credentials", "password", "jwt-bearer", "device_code", "ciba"]
    assert '<textarea id="redirect_uri" name="redirect_uri" rows="3" spellcheck="false" ' \
           'aria-describedby="redirect_uri-hint"></textarea>' in body
    with pytest.raises(ApiError) as auditor:
        get_new(get("client-new"), signed("auditor"))
    assert (auditor.value.code, auditor.value.detail) == ("operator_forbidden", "Your roles (auditor) do not allow this.")


def test_a_registration_is_the_form_read_as_the_command_reads_its_options(
        acme: None, audit_events: Callable[[], list[dict[str, Any]]]) -> None:
    from authgate.clients.model import client_secret_matches
    from authgate.stores.clients import ClientStore

    answer = post_new(post("client-new", WEB), ADMIN)
    client = ClientStore().get("web")
    assert client is not None
    assert (client.tenant_id, client.name, client.client_type, client.redirect_uris, client.grant_types,
            client.scopes, client.requires_admin_approval) == (
        "acme", "Web <app>", "confidential", ("https://app.example/cb", "https://app.example/cb2"),
        ("authorization_code", "refresh_token"), ("openid", "profile"), False)
    secret = re.search(r'<code class="secret">([^<]+)</code>', str(answer.body))
    assert secret is not None and client_secret_matches(client, secret.group(1))
    assert main_text(answer) == (
        f"Registered: web Done: client_id: web. Client secret {secret.group(1)} The secret is shown once and stored "
        "only as a hash: keep it now. To web")
    (event,) = audit_events()
    assert (event["action"], event["tenant"], event["target"], event["details"]["console_action"]) == (
        "client.registered", "acme", {"type": "client", "id": "web"}, "create")
    assert secret.group(1) not in str(event)


@pytest.mark.parametrize(("changed", "code", "message"), [
    ({"type": "other"}, "invalid_request", "The type field must be one of confidential, public."),
    ({"error_format": "xml"}, "invalid_request", "The error_format field must be one of problem, legacy-a, legacy-b."),
    ({"tenant": "nowhere"}, "invalid_request", "tenant 'nowhere' does not exist here"),
    ({"tenant": "x" * 65}, "invalid_request", "The tenant field is too long or holds control characters."),
    ({"grant.authorization_code": ""}, "invalid_request", ("--redirect-uri is only used by the authorization_code "
                                                          "grant; add --grant authorization_code or drop the redirect "
                                                          "URIs")),
])
def test_a_registration_refused_says_why_in_the_commands_words(acme: None, changed: dict[str, str], code: str,
                                                               message: str) -> None:
    from authgate.stores.clients import ClientStore

    with pytest.raises(ApiError) as refused:
        post_new(post("client-new", {**WEB, **changed}), ADMIN)
    assert (refused.value.code, refused.value.detail) == (code, message)
    assert ClientStore().get("web") is None


def test_a_client_taken_and_a_form_sent_twice_are_refused(acme: None,
                                                         audit_events: Callable[[], list[dict[str, Any]]]) -> None:
    form = post("client-new", WEB)
    post_new(form, ADMIN)
    with pytest.raises(ApiError) as again:
        post_new(form, ADMIN)
    assert again.value.detail == "This form was sent already, and its answer shown once; open the page again."
    with pytest.raises(ApiError) as taken:
        post_new(post("client-new", WEB), ADMIN)
    assert (taken.value.code, taken.value.detail) == ("invalid_request", "client 'web' already exists")
    assert [(e["outcome"], e.get("reason")) for e in audit_events()] == [("success", None), ("failure", "client_exists")]


def test_the_change_form_holds_the_client_escaped(acme: None) -> None:
    _registered(acme)
    body = str(get_edit(get("client-edit", [("client_id", "web")]), ADMIN).body)
    assert '<input id="name" name="name" value="Web &lt;app&gt;"' in body
    assert re.findall(r'name="grant\.([a-z_]+)" value="yes" checked', body) == ["authorization_code", "refresh_token"]
    assert '<input type="hidden" name="client_id" value="web">' in body
    with pytest.raises(ApiError) as missing:
        get_edit(get("client-edit", [("client_id", "<nobody>")]), ADMIN)
    assert (missing.value.code, missing.value.detail) == ("not_found", "There is no client '<nobody>'.")


def test_a_change_says_what_the_command_says_and_a_client_keeps_a_grant(acme: None) -> None:
    from authgate.stores.clients import ClientStore

    _registered(acme)
    answer = post_edit(post("client-edit", {"client_id": "web", "name": "Web", "grant.authorization_code": "yes",
                                            "require_par": "yes"}), ADMIN)
    assert main_text(answer) == (
        "Changed: web Done: client_id: web updated (auth client_secret_basic, profile none, 0 keys, PAR required, "
        "resource grants none). To web")
    client = ClientStore().get("web")
    assert client is not None
    assert (client.name, client.grant_types, client.require_pushed_authorization_requests) == (
        "Web", ("authorization_code",), True)
    with pytest.raises(ApiError) as no_grant:
        post_edit(post("client-edit", {"client_id": "web", "name": "Web"}), ADMIN)
    assert (no_grant.value.code, no_grant.value.detail) == (
        "invalid_request", ("give at least one --grant (authorization_code, refresh_token, client_credentials, "
                           "password, jwt-bearer)"))
