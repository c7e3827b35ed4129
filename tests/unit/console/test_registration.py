"""console.registration: a client's page: where it came from and what that means, its whole registration as
`authgate clients show` prints it (never its secret), the actions for who may change clients, and the way back."""

from __future__ import annotations

import pytest

from authgate.console.registration import get_client
from authgate.errors import ApiError
from tests.unit.console.page_support import TIMES, client, get, main_text, signed, tenants


@pytest.fixture
def acme(aws: None, clock: object) -> None:
    """In tenant acme: an administrator's confidential client, a registered one, a metadata document's."""
    from authgate.administration.client_registration import Asked
    from authgate.administration.clients import create

    tenants("acme")
    create(Asked(client_id="web", tenant="acme", grant=["client_credentials"], name="<b>Web</b>", scope=["charges:read"]))
    client("dyn", client_type="public", source="registration", registration_pool="<pool>", expires_at=TIMES + 86400,
         redirect_uris=["https://dyn.example/cb"], grant_types=["authorization_code"])
    client("https://app.example/c.json", client_type="public", source="metadata_document", refresh_at=TIMES + 3600)


def test_an_administrators_client_and_the_actions_on_it(acme: None) -> None:
    answer = get_client(get("client", [("client_id", "web")]), signed("admin"))
    assert main_text(answer) == (
        "Client web Source: administrator An administrator registered it (`authgate clients create`, or this "
        "console). Actions Change Rotate the secret Delete Registration client_id web tenant_id acme environment "
        "local client_type confidential redirect_uris - grant_types client_credentials scopes charges:read "
        "error_format problem requires_admin_approval no name <b>Web</b> created_at 2025-06-15 15:06:40 UTC jwks - "
        "token_endpoint_auth_method client_secret_basic require_pushed_authorization_requests no profile - "
        "dpop_bound_access_tokens no source - refresh_at never expires_at never registration_pool - resource_scopes - "
        "post_logout_redirect_uris - backchannel_logout_uri - backchannel_logout_session_required no "
        "id_token_signed_response_alg RS256 backchannel_token_delivery_mode - All clients of acme")
    body = str(answer.body)
    assert "<b>Web" not in body and "&lt;b&gt;Web&lt;/b&gt;" in body
    assert "secret_hash" not in body
    assert '<a href="http://127.0.0.1:3000/console/client-act?client_id=web&amp;action=rotate-secret">' in body


def test_a_registered_client_says_its_pool_and_its_end(acme: None) -> None:
    text = main_text(get_client(get("client", [("client_id", "dyn")]), signed("auditor")))
    assert text.startswith(
        "Client dyn Source: dynamic registration It registered itself through dynamic registration (RFC 7591) on "
        "2025-06-15 15:06:40 UTC, in the pool <pool>; unless someone signs in to it, its registration ends on "
        "2025-06-16 15:06:40 UTC. It holds a registration access token to read, change or delete its own "
        "registration; deleting it here ends that token too. Registration client_id dyn ")  # an auditor: no actions


def test_a_metadata_documents_client_says_when_it_is_fetched_again(acme: None) -> None:
    text = main_text(get_client(get("client", [("client_id", "https://app.example/c.json")]), signed("owner")))
    assert text.startswith(
        "Client https://app.example/c.json Source: metadata document Its registration is the Client ID Metadata "
        "Document at https://app.example/c.json, fetched on 2025-06-15 15:06:40 UTC and fetched again after "
        "2025-06-15 16:06:40 UTC. Deleting it drops the cached document: the next request naming it fetches it again. "
        "Actions Change Delete Registration ")  # public: no secret to rotate


def test_a_client_is_judged_before_it_is_read(acme: None) -> None:
    with pytest.raises(ApiError) as refused:
        get_client(get("client", [("client_id", "nope")]), signed("support", "acme"))
    assert (refused.value.code, refused.value.detail) == (
        "operator_forbidden", "Your roles (support (acme)) do not allow this.")
    with pytest.raises(ApiError) as missing:
        get_client(get("client", [("client_id", "nope")]), signed("auditor"))
    assert (missing.value.code, missing.value.detail) == ("not_found", "There is no client 'nope'.")
