"""console.clients: one tenant's clients of every source, a page at a time, each escaped; the rule of a client's pages
(judged: the roles first, then the client); a posted field's bound; a form taken once."""

from __future__ import annotations

import pytest

from authgate.console.clients import PAGE_SIZE, bounded, get_clients, grant_names, judged, once
from authgate.errors import ApiError
from tests.unit.console.page_support import client, get, main_text, signed, tenants

OWNER = signed("owner")


@pytest.fixture
def acme(aws: None) -> None:
    """Tenants acme and globex; in acme an administrator's client, a registered one and a metadata document's."""
    tenants("acme", "globex")
    client("web", name="<b>Web</b>", client_type="confidential",
         grant_types=["authorization_code", "urn:ietf:params:oauth:grant-type:device_code"])
    client("dyn", source="registration", grant_types=["authorization_code"])
    client("https://app.example/client.json", source="metadata_document")


def test_a_tenants_clients_say_where_they_came_from(acme: None) -> None:
    answer = get_clients(get("clients", [("tenant", "acme")]), OWNER)
    assert main_text(answer) == (
        "Clients Tenant acme globex Show its clients Register a client Clients of acme Client id Name Type Source "
        "Grants dyn - public dynamic registration authorization_code https://app.example/client.json - public "
        "metadata document - web <b>Web</b> confidential administrator authorization_code, device_code")
    body = str(answer.body)
    assert "<b>Web" not in body and "&lt;b&gt;Web&lt;/b&gt;" in body
    assert ('<a href="http://127.0.0.1:3000/console/client?client_id=https%3A%2F%2Fapp.example%2Fclient.json">'
            in body)


def test_an_auditor_sees_them_and_is_offered_no_registration(acme: None) -> None:
    text = main_text(get_clients(get("clients"), signed("auditor")))  # no tenant asked: the first
    assert text.startswith("Clients Tenant acme globex Show its clients Clients of acme ")


def test_an_empty_tenant_says_so(acme: None) -> None:
    assert main_text(get_clients(get("clients", [("tenant", "globex")]), OWNER)).endswith(
        "Register a client Tenant globex has no client.")
    assert main_text(get_clients(get("clients", [("tenant", "globex"), ("after", "web")]), OWNER)).endswith(
        "Tenant globex has no client after these.")


def test_clients_come_a_page_at_a_time(acme: None) -> None:
    for number in range(PAGE_SIZE):
        client(f"c{number:02}", "globex")
    assert "Next page" not in main_text(get_clients(get("clients", [("tenant", "globex")]), OWNER))
    client("c20", "globex")
    first = get_clients(get("clients", [("tenant", "globex")]), OWNER)
    shown = [f"c{n:02}" for n in range(21) if f"c{n:02} - public" in main_text(first)]
    assert len(shown) == PAGE_SIZE and main_text(first).endswith(" Next page")
    after = str(first.body).split("/console/clients?tenant=globex&amp;after=", 1)[1].split('"', 1)[0]
    assert after in shown  # the last of the page in the table's order (the page shows them sorted)
    more = main_text(get_clients(get("clients", [("tenant", "globex"), ("after", after)]), OWNER))
    assert more.startswith("Clients Tenant acme globex Show its clients Register a client Clients of globex "
                           "(continued) Client id Name Type Source Grants ")
    assert [f"c{n:02}" for n in range(21) if f"c{n:02} - public" in more] == sorted(
        {f"c{n:02}" for n in range(21)} - set(shown))


def test_the_clients_page_asks_the_roles_first(acme: None) -> None:
    with pytest.raises(ApiError) as support:
        get_clients(get("clients", [("tenant", "acme")]), signed("support", "acme"))
    assert (support.value.code, support.value.detail) == (
        "operator_forbidden", "Your roles (support (acme)) do not allow this in tenant acme.")
    with pytest.raises(ApiError) as missing:
        get_clients(get("clients", [("tenant", "nowhere")]), OWNER)
    assert (missing.value.code, missing.value.detail) == ("not_found", "There is no tenant 'nowhere'.")


def test_a_clients_page_is_judged_before_the_client_is_read(acme: None) -> None:
    assert judged(get("client"), OWNER, "clients.view", "web").name == "<b>Web</b>"
    cases = [(signed("support", "acme"), "nope", "operator_forbidden",
              "Your roles (support (acme)) do not allow this."),  # not "there is no client"
             (OWNER, "", "invalid_request", "Name the client with client_id."),
             (OWNER, "a\x01b", "invalid_request", "The client_id field is too long or holds control characters."),
             (OWNER, "x" * 257, "invalid_request", "The client_id field is too long or holds control characters."),
             (OWNER, "nope", "not_found", "There is no client 'nope'.")]
    for operator, client_id, code, detail in cases:
        with pytest.raises(ApiError) as refused:
            judged(get("client"), operator, "clients.view", client_id)
        assert (refused.value.code, refused.value.detail) == (code, detail)


def test_a_field_is_bounded() -> None:
    assert bounded("x" * 256, "name") == "x" * 256
    assert bounded("é" * 10, "name", 10) == "é" * 10
    # Every control character (Unicode's Cc): C0, DEL and C1 alike.
    for value in ("x" * 257, "a\nb", "a\x7fb", "a\x85b", "a\x9fb"):
        with pytest.raises(ApiError) as refused:
            bounded(value, "name")
        assert (refused.value.code, refused.value.detail) == (
            "invalid_request", "The name field is too long or holds control characters.")


def test_a_form_is_taken_once(aws: None) -> None:
    once({"nonce": "n-1"})
    once({"nonce": "n-2"})
    with pytest.raises(ApiError) as again:
        once({"nonce": "n-1"})
    assert (again.value.code, again.value.detail) == (
        "invalid_request", "This form was sent already, and its answer shown once; open the page again.")


def test_grants_are_named_by_their_short_names() -> None:
    from authgate.clients.model import client_of

    assert grant_names(client_of({"client_id": "c", "grant_types": [
        "client_credentials", "urn:openid:params:grant-type:ciba"]})) == "client_credentials, ciba"
    assert grant_names(client_of({"client_id": "c"})) == "-"
