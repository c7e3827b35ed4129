"""console.client_act: a client's secret rotated or the client deleted, each confirmed first and taken once, with the
command's operation, words and audit event."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from authgate.console.client_act import get_act, post_act
from authgate.errors import ApiError
from tests.unit.console.page_support import get, main_text, post, signed, tenants

OWNER = signed("owner")


@pytest.fixture
def web(aws: None) -> str:
    """Client web of tenant acme, confidential; its secret."""
    from authgate.administration.client_registration import Asked
    from authgate.administration.clients import create

    tenants("acme")
    _, secret = create(Asked(client_id="web", tenant="acme", grant=["client_credentials"], name="<Web>"))
    assert secret is not None
    return secret


@pytest.mark.parametrize(("action", "said"), [
    ("rotate-secret", ("Rotate the secret: web? web gets a new secret, shown once on the next page; the old one stops "
                      "working now. Rotate the secret Cancel")),
    ("delete", ("Delete: web? web is removed: its refresh tokens stop working now, its access tokens within a minute. "
               "Delete Cancel")),
])
def test_each_action_is_confirmed_first(web: str, action: str, said: str) -> None:
    answer = get_act(get("client-act", [("client_id", "web"), ("action", action)]), OWNER)
    assert main_text(answer) == said
    assert f'<input type="hidden" name="action" value="{action}">' in str(answer.body)


def test_an_unknown_action_is_named_with_the_ones_there_are(web: str) -> None:
    with pytest.raises(ApiError) as refused:
        get_act(get("client-act", [("client_id", "web"), ("action", "<revive>")]), OWNER)
    assert (refused.value.code, refused.value.detail) == (
        "invalid_request", "There is no action '<revive>': the actions are rotate-secret, delete.")


def test_a_rotation_shows_the_new_secret_once(web: str, audit_events: Callable[[], list[dict[str, Any]]]) -> None:
    from authgate.clients.model import client_secret_matches
    from authgate.stores.clients import ClientStore

    form = post("client-act", {"client_id": "web", "action": "rotate-secret"})
    answer = post_act(form, OWNER)
    found = re.search(r'<code class="secret">([^<]+)</code>', str(answer.body))
    assert found is not None
    new = found.group(1)
    assert main_text(answer) == (
        f"Rotate the secret: web Done: client_id: web. Client secret {new} The old secret stopped working now. The "
        "new one is shown once: keep it now. To web")
    client = ClientStore().get("web")
    assert client is not None and client_secret_matches(client, new) and not client_secret_matches(client, web)
    with pytest.raises(ApiError) as again:
        post_act(form, OWNER)
    assert again.value.detail == "This form was sent already, and its answer shown once; open the page again."
    (event,) = audit_events()
    assert (event["action"], event["outcome"], event["target"]) == (
        "client.secret_rotated", "success", {"type": "client", "id": "web"})
    assert new not in str(event)


def test_a_deletion_says_what_the_command_says(web: str) -> None:
    from authgate.stores.clients import ClientStore

    answer = post_act(post("client-act", {"client_id": "web", "action": "delete"}), OWNER)
    assert main_text(answer) == "Delete: web Done: client_id: web deleted. All clients of acme"
    assert ClientStore().get("web") is None
    with pytest.raises(ApiError) as gone:
        post_act(post("client-act", {"client_id": "web", "action": "delete"}), OWNER)
    assert (gone.value.code, gone.value.detail) == ("not_found", "There is no client 'web'.")


def test_a_public_client_has_no_secret_to_rotate(web: str, audit_events: Callable[[], list[dict[str, Any]]]) -> None:
    from authgate.administration.client_registration import Asked
    from authgate.administration.clients import create

    create(Asked(client_id="spa", tenant="acme", type="public", grant=["authorization_code"],
                 redirect_uri=["https://spa.example/cb"]))
    with pytest.raises(ApiError) as refused:
        post_act(post("client-act", {"client_id": "spa", "action": "rotate-secret"}), OWNER)
    assert (refused.value.code, refused.value.detail) == (
        "invalid_request", "client 'spa' is public: it has no secret to rotate (RFC 6749 2.1)")
    (event,) = audit_events()
    assert (event["action"], event["outcome"], event["reason"]) == ("client.secret_rotated", "failure", "invalid_input")


def test_who_may_not_change_clients_is_refused_before_the_client_is_read(web: str) -> None:
    with pytest.raises(ApiError) as auditor:
        post_act(post("client-act", {"client_id": "web", "action": "delete"}), signed("auditor"))
    assert (auditor.value.code, auditor.value.detail) == ("operator_forbidden", "Your roles (auditor) do not allow this.")
