"""oauth.clients.tenant_policy: whether a tenant accepts a client that registered itself (docs/agents.md)."""

from __future__ import annotations

import pytest

from authgate.clients.model import DOCUMENT_SOURCE, REGISTRATION_SOURCE, Client
from authgate.errors import ApiError
from authgate.oauth.clients.tenant_policy import check, refusal
from authgate.tenants.model import Tenant

ADMIN = Client(client_id="web", tenant_id="acme", environment="local", client_type="confidential", secret_hash="h",
               redirect_uris=("https://app.example/cb",), grant_types=("authorization_code",), scopes=())
DOCUMENT = ADMIN._replace(client_id="https://tools.example/agent.json", tenant_id="", client_type="public",
                          secret_hash=None, source=DOCUMENT_SOURCE)
REGISTERED = ADMIN._replace(client_id="dcr_1", tenant_id="", client_type="public", secret_hash=None,
                            source=REGISTRATION_SOURCE)


def test_an_administrators_client_is_always_accepted() -> None:
    assert refusal(ADMIN, Tenant("acme")) is None and refusal(ADMIN, None) is None


def test_a_document_client_is_accepted_by_its_host_and_a_registered_one_by_the_switch() -> None:
    assert refusal(DOCUMENT, Tenant("acme", client_metadata_hosts=("tools.example",))) is None
    assert refusal(REGISTERED, Tenant("acme", registered_clients=True)) is None
    doc = refusal(DOCUMENT, Tenant("acme", client_metadata_hosts=("other.example",)))
    reg = refusal(REGISTERED, Tenant("acme"))
    assert doc is not None and reg is not None
    assert (doc.code, doc.status, doc.oauth_error, doc.internal, doc.detail) == (
        "client_metadata_not_allowed", 400, "invalid_client", "tenant acme policy (client_metadata_hosts)",
        ("Your organisation does not accept applications known only by a metadata document from tools.example. "
        "Ask its administrator."))
    assert (reg.code, reg.oauth_error, reg.detail) == (
        "registered_client_not_allowed", "invalid_client",
        "Your organisation does not accept applications that registered themselves. Ask its administrator.")
    taken = refusal(REGISTERED, None)  # held by another tenant: no tenant to ask
    assert taken is not None and taken.internal == "tenant ? policy (registered_clients)"


def test_at_the_token_endpoint_a_refusal_is_invalid_grant_and_check_raises_it() -> None:
    grant = refusal(DOCUMENT, Tenant("acme"), grant=True)
    assert grant is not None and (grant.code, grant.oauth_error) == ("client_metadata_not_allowed", "invalid_grant")
    assert grant.detail.startswith("The organisation this grant was made in no longer accepts")
    check(ADMIN, Tenant("acme"))
    with pytest.raises(ApiError) as raised:
        check(REGISTERED, Tenant("acme"), grant=True)
    assert (raised.value.code, raised.value.oauth_error) == ("registered_client_not_allowed", "invalid_grant")


def test_a_tenant_policy_names_hosts_domains_or_any() -> None:
    tenant = Tenant("t", client_metadata_hosts=("tools.example", ".agents.example"))
    assert tenant.accepts_metadata_host("tools.example") and tenant.accepts_metadata_host("a.agents.example")
    assert not tenant.accepts_metadata_host("agents.example") and not tenant.accepts_metadata_host("evil-tools.example")
    assert not Tenant("t").accepts_metadata_host("tools.example")
    assert Tenant("t", client_metadata_hosts=("*",)).accepts_metadata_host("anything.example")
