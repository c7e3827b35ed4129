"""interaction.upstream_answer: an IdP's answer comes back to the flow's page only as a ticket of this form, of its
kind, while its IdP is still offered and of the hand-off's tenant; anything else is the sign-in form again."""

from __future__ import annotations

import pytest

from authgate.federation.upstream import UpstreamIdentity
from authgate.identity_providers.model import IdentityProvider
from authgate.interaction.handoff import Again, Back, HandOff, Voice
from authgate.interaction.messages import UPSTREAM_ENDED, UPSTREAM_UNAVAILABLE
from authgate.interaction.upstream_answer import linked, signed_in
from authgate.interaction.upstream_ticket import Kind, Ticket, sealed
from authgate.tenants.model import Tenant
from tests.unit.interaction.conftest import PageRequest

ISSUER = "https://idp.acme.example"
TICKET = Ticket(UpstreamIdentity("acme", ISSUER, "sub-1", email="ann@acme.example"), "acme-sso", "oidc")
CSRF = "the-csrf-of-this-form"


def _hand_off(logged: list[str], tenant: str = "acme") -> HandOff:
    back = Back(action="authorize", state=lambda step: [("csrf", CSRF)],
                voice=Voice(asker="Acme", factor_lead="", goal="To continue", approved="it"), log=logged.append)
    return HandOff(tenant=Tenant(tenant), back=back)


@pytest.fixture
def offered(aws: None) -> None:
    """acme's OIDC IdP acme-sso, offered for sign-in."""
    from authgate.stores.identity_providers import IdentityProviderStore

    IdentityProviderStore().create(IdentityProvider("acme", ISSUER, idp_id="acme-sso", protocol="oidc",
                                                    sign_in=True, jwks_uri=f"{ISSUER}/jwks"))


@pytest.mark.parametrize(("kind", "csrf"), [
    ("link", CSRF),  # a ticket of the link page posted as the IdP's answer
    ("signed", "the-csrf-of-another-form"),
])
def test_a_ticket_of_another_kind_or_form_is_the_form_again(offered: None, page_request: PageRequest, kind: Kind,
                                                            csrf: str) -> None:
    logged: list[str] = []
    fields = {"upstream_ticket": sealed(kind, TICKET, csrf), "csrf": CSRF}
    assert signed_in(page_request([]), _hand_off(logged), fields) == Again(UPSTREAM_ENDED)
    assert logged == ["upstream_step_invalid"]


def test_the_idps_answer_is_no_proof_on_the_link_page(offered: None, page_request: PageRequest) -> None:
    logged: list[str] = []
    # The link page reads its own field only: a link ticket under the answer's name is not read there.
    fields = {"link_ticket": sealed("signed", TICKET, CSRF), "upstream_ticket": sealed("link", TICKET, CSRF),
              "csrf": CSRF, "username": "ann", "password": "x"}
    assert linked(page_request([]), _hand_off(logged), fields) == Again(UPSTREAM_ENDED)
    assert logged == ["upstream_step_invalid"]


def test_no_ticket_is_the_form_again(aws: None, page_request: PageRequest) -> None:
    logged: list[str] = []
    assert signed_in(page_request([]), _hand_off(logged), {"csrf": CSRF}) == Again(UPSTREAM_ENDED)
    assert logged == ["upstream_step_invalid"]


@pytest.mark.parametrize(("ticket", "tenant"), [
    (TICKET._replace(idp_id="other-sso"), "acme"),  # the IdP's record is no longer that one
    (TICKET._replace(protocol="saml"), "acme"),
    (TICKET, "globex"),  # an IdP of another tenant than the flow's
    (TICKET._replace(identity=TICKET.identity._replace(issuer="https://gone.example")), "acme"),  # no record at all
])
def test_an_idp_no_longer_offered_here_is_the_form_again(offered: None, page_request: PageRequest, ticket: Ticket,
                                                         tenant: str) -> None:
    logged: list[str] = []
    fields = {"upstream_ticket": sealed("signed", ticket, CSRF), "csrf": CSRF}
    assert signed_in(page_request([]), _hand_off(logged, tenant), fields) == Again(UPSTREAM_UNAVAILABLE)
    assert logged == ["upstream_unavailable"]
