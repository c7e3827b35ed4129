"""interaction.sign_in_fields: the one set of sign-in fields and the one decision every flow's form draws."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from authgate.interaction import messages
from authgate.interaction.handoff import HandOff
from authgate.interaction.sign_in_fields import decision, fields
from authgate.tenants.model import Tenant

DEMO = Tenant("demo")


class Elements(HTMLParser):
    """The inputs (name -> attributes) and buttons of a fragment, and its text."""

    def __init__(self, fragment: str) -> None:
        super().__init__()
        self.inputs: dict[str, dict[str, str | None]] = {}
        self.buttons: list[tuple[str | None, str | None, str | None]] = []
        self.text: list[str] = []
        self.feed(fragment)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "input":
            self.inputs[str(named["name"])] = named
        elif tag == "button":
            self.buttons.append((named.get("name"), named.get("value"), named.get("class")))

    def handle_data(self, data: str) -> None:
        if data.strip():
            self.text.append(" ".join(data.split()))


def test_a_tenants_sign_in_asks_the_username_and_password_the_first_empty_one_focused() -> None:
    empty = Elements(fields(HandOff(tenant=DEMO)))
    assert list(empty.inputs) == ["username", "password"]
    assert (empty.inputs["username"]["value"], "autofocus" in empty.inputs["username"],
            "autofocus" in empty.inputs["password"]) == ("", True, False)
    hinted = Elements(fields(HandOff(tenant=DEMO), username="alice"))
    assert (hinted.inputs["username"]["value"], "autofocus" in hinted.inputs["username"],
            "autofocus" in hinted.inputs["password"]) == ("alice", False, True)
    assert empty.text == ["Username", "Password"]


def test_without_a_tenant_the_person_names_their_organisation_in_the_flows_words() -> None:
    page = Elements(fields(HandOff(tenant=Tenant(""), words=messages.SIGN_IN_ORGANISATION), organisation="acme"))
    assert list(page.inputs) == ["tenant", "username", "password"]
    assert page.inputs["tenant"]["value"] == "acme" and "autofocus" not in page.inputs["tenant"]
    assert page.text[:2] == ["Organisation", "The short id your administrator gave you, such as"]
    account = Elements(fields(HandOff(tenant=Tenant(""), words=messages.ACCOUNT)))
    assert account.text[-2:] == ["Username or email", "Password"]


def test_a_code_is_offered_only_where_the_request_asks_for_mfa() -> None:
    offered = HandOff(tenant=DEMO, code="offered")
    assert list(Elements(fields(offered)).inputs) == ["username", "password"]
    for asking in (offered._replace(acr_values=("mfa",)), offered._replace(essential_acr=("mfa",)),
                   offered._replace(tenant=DEMO._replace(require_mfa=True))):
        code = Elements(fields(asking)).inputs["code"]
        assert (code["autocomplete"], "required" in code, code["aria-describedby"]) == (
            "one-time-code", False, "code-help")


def test_a_sign_in_at_mfa_in_one_form_requires_the_code_and_names_its_person() -> None:
    page = Elements(fields(HandOff(tenant=DEMO, code="required", username="bob")))
    assert list(page.inputs) == ["password", "code"]
    assert "required" in page.inputs["code"] and "autofocus" in page.inputs["password"]
    assert page.text == ["Signing in as", "bob", ".", "Password", "One-time code or recovery code"]


def test_a_person_signed_in_sees_who_instead_and_everything_is_escaped() -> None:
    evil = '"><script>x</script>'
    assert fields(HandOff(tenant=DEMO), signed_in_as=evil) == (
        '<p class="signed-in">Signed in as <strong>&quot;&gt;&lt;script&gt;x&lt;/script&gt;</strong>.</p>')
    page = fields(HandOff(tenant=Tenant("")), username=evil, organisation=evil)
    assert "<script>" not in page and Elements(page).inputs["username"]["value"] == evil


@pytest.mark.parametrize("passkey", [False, True])
def test_the_decision_is_approve_and_deny_and_a_passkey_where_offered(passkey: bool) -> None:
    buttons = Elements(decision(passkey=passkey)).buttons
    assert buttons == [("decision", "approve", None), ("decision", "deny", "secondary"),
                       *([("decision", "passkey", "secondary")] if passkey else [])]
