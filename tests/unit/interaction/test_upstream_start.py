"""interaction.upstream_start: where an upstream sign-in starts: the button of an IdP the tenant offers, home-realm
discovery of an email no password came with, and which IdP record is still offered."""

from __future__ import annotations

import pytest

from authgate.identity_providers.model import IdentityProvider
from authgate.interaction.handoff import Again, Back, HandOff, Voice
from authgate.interaction.messages import UPSTREAM_UNAVAILABLE
from authgate.interaction.upstream_start import chosen, discovered, offered
from authgate.tenants.model import Tenant
from tests.unit.interaction.conftest import PageRequest

IDP = IdentityProvider("acme", "https://idp.acme.example", idp_id="acme-sso", protocol="oidc", sign_in=True)


def _hand_off(logged: list[str], **asked: object) -> HandOff:
    back = Back(action="authorize", state=lambda step: [("csrf", "c")],
                voice=Voice(asker="Acme", factor_lead="", goal="To continue", approved="it"), log=logged.append)
    return HandOff(tenant=Tenant("acme"), back=back)._replace(**asked)


def test_an_idp_is_offered_while_it_signs_in_under_the_id_and_protocol_named() -> None:
    assert offered(IDP, "acme-sso", "oidc")
    assert offered(IDP._replace(protocol="saml"), "acme-sso", "saml")
    assert not offered(IDP._replace(sign_in=False), "acme-sso", "oidc")
    assert not offered(IDP, "other", "oidc")
    assert not offered(IDP, "acme-sso", "saml")
    assert not offered(IDP._replace(protocol="ldap"), "acme-sso", "ldap")


def test_a_button_of_no_idp_the_tenant_offers_is_the_form_again(aws: None, page_request: PageRequest) -> None:
    logged: list[str] = []
    assert chosen(page_request([]), _hand_off(logged), {"upstream": "acme-sso"}) == Again(UPSTREAM_UNAVAILABLE)
    assert logged == ["upstream_unknown"]


@pytest.fixture
def claimed(aws: None) -> None:
    """Tenant acme, whose SAML IdP claims acme.example and is offered for sign-in, its metadata incomplete (no
    certificate): discovery finds it, and a sign-in there cannot start."""
    from authgate.stores.identity_providers import IdentityProviderStore
    from authgate_cli.local.loaders import tenants as seed

    seed([{"tenant_id": "acme", "name": "acme", "currencies": ["usd"], "forbidden_scopes": [], "approved_clients": []}])
    IdentityProviderStore().create(IDP._replace(protocol="saml", domains=("acme.example",), saml={
        "entity_id": IDP.issuer, "sso_url": "https://idp.acme.example/sso", "certificates": []}))


@pytest.mark.parametrize(("asked", "fields"), [
    ({"username": "ann"}, {"username": "ann@acme.example"}),  # the person is known already: no discovery
    ({}, {"username": "ann"}),  # not an email
    ({}, {"username": "ann@other.example"}),  # no IdP claims the domain
])
def test_discovery_leaves_the_password_step_to_answer(claimed: None, page_request: PageRequest,
                                                      asked: dict[str, str], fields: dict[str, str]) -> None:
    logged: list[str] = []
    assert discovered(page_request([]), _hand_off(logged, **asked), fields) is None
    assert logged == []


def test_an_email_an_idp_claims_goes_there_or_the_form_says_it_cannot(claimed: None,
                                                                     page_request: PageRequest) -> None:
    logged: list[str] = []
    assert discovered(page_request([]), _hand_off(logged), {"username": " Ann@ACME.example "}) == Again(
        UPSTREAM_UNAVAILABLE)
    assert logged == ["upstream_unavailable"]
