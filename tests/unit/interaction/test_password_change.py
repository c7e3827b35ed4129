"""interaction.password_change: the forced change's ticket is signed, bound to its purpose and short-lived."""

from __future__ import annotations

import pytest

from authgate import caches
from authgate.clock import ManualClock
from authgate.interaction import password_change
from authgate.interaction.binding import csrf_token
from authgate.interaction.password_change import Ticket, TicketInvalid, issue, redeem


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "unit-test-session-secret-0123456789")
    caches.reset()


@pytest.mark.usefixtures("secret")
def test_a_ticket_names_its_account_until_it_expires(clock: ManualClock) -> None:
    ticket = issue("demo", "alice")
    assert redeem(ticket) == Ticket("demo", "alice")
    clock.advance(password_change.TICKET_TTL)
    with pytest.raises(TicketInvalid, match="expired"):
        redeem(ticket)


@pytest.mark.usefixtures("secret")
def test_an_altered_ticket_or_another_purposes_mac_is_refused() -> None:
    data, mac = issue("demo", "alice").split(".")
    forged = data.replace(data[5], "A" if data[5] != "A" else "B", 1)
    for bad in (f"{forged}.{mac}", f"{data}.{mac[:-2]}xx", "garbage", f"{data}.{csrf_token('b', 'n')}"):
        with pytest.raises(TicketInvalid):
            redeem(bad)
