"""interaction.passkey_step: a passkey alone, where this issuer can be its relying party."""

from __future__ import annotations

from authgate.interaction.handoff import Again, Back, HandOff, Voice
from authgate.interaction.messages import PASSKEY_REFUSED
from authgate.interaction.passkey_step import page, signed_in
from authgate.tenants.model import Tenant
from tests.demo import Demo
from tests.unit.interaction.conftest import PageRequest


def test_an_issuer_on_an_ip_address_offers_no_ceremony_and_no_answer_signs_anyone_in(
        demo: Demo, page_request: PageRequest) -> None:
    logged: list[str] = []
    handoff = HandOff(tenant=Tenant("demo"), back=Back(action="device", state=lambda step: [], log=logged.append,
                                                       voice=Voice(asker="", factor_lead="", goal="", approved="")))
    assert page(page_request(), handoff) == Again(PASSKEY_REFUSED)
    assert signed_in(page_request([("credential", "{}")]), handoff, {"credential": "{}"}) == Again(PASSKEY_REFUSED)
    assert logged == ["passkey_refused"]
