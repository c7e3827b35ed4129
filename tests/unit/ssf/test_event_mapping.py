"""Audit events as CAEP 1.0 and RISC 1.0 signals (ssf.event_mapping)."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.ssf.event_mapping import Signal, signals_of

CAEP = "https://schemas.openid.net/secevent/caep/event-type/"
RISC = "https://schemas.openid.net/secevent/risc/event-type/"
WHEN = 1749981600


def event(action: str, actor: str = "user", outcome: str = "success", **details: Any) -> dict[str, Any]:
    return {"id": "e", "time": "2025-06-15T10:00:00Z", "tenant": "demo", "actor": {"type": actor, "id": "a"},
            "action": action, "target": {"type": "user", "id": "usr_1"}, "outcome": outcome, "details": details}


def caep(reason: str, initiator: str = "user", **claims: Any) -> dict[str, Any]:
    return {**claims, "event_timestamp": WHEN, "initiating_entity": initiator, "reason_admin": {"en": reason}}


@pytest.mark.parametrize(("audit", "signals"), [
    (event("session.ended"), [Signal(CAEP + "session-revoked", caep("The user signed out."))]),
    (event("user.sessions_revoked", actor="operator"),
     [Signal(CAEP + "session-revoked", caep("The user's sessions were ended.", "admin"))]),
    (event("user.disabled", actor="operator"),
     [Signal(CAEP + "session-revoked", caep("The user's account was disabled.", "admin")),
      Signal(RISC + "account-disabled", {})]),
    (event("user.enabled"), [Signal(RISC + "account-enabled", {})]),
    (event("user.deleted"), [Signal(RISC + "account-purged", {})]),
    (event("password.reset"), [Signal(CAEP + "credential-change", caep(
        "The user's password was reset.", credential_type="password", change_type="update"))]),
    (event("factor.removed"), [Signal(CAEP + "credential-change", caep(
        "An authenticator app was removed as a second factor.", credential_type="app", change_type="delete"))]),
    (event("passkey.added", aaguid="adce0002-35bc-c60a-648b-0b25f1f05503", name="Laptop",
           authenticator_attachment="cross-platform"),
     [Signal(CAEP + "credential-change", caep("A passkey was added.", credential_type="fido2-roaming",
                                               change_type="create", fido2_aaguid="adce0002-35bc-c60a-648b-0b25f1f05503",
                                               friendly_name="Laptop"))]),
    (event("passkey.removed"), [Signal(CAEP + "credential-change", caep(
        "A passkey was removed.", credential_type="fido2-platform", change_type="delete"))]),
])
def test_each_action_and_its_signals(audit: dict[str, Any], signals: list[Signal]) -> None:
    assert signals_of(audit) == signals


@pytest.mark.parametrize("audit", [
    event("session.ended", outcome="failure"),
    event("charge.created"),
    {**event("user.disabled"), "target": {"type": "client", "id": "demo-web"}},
    {**event("user.disabled"), "target": None},
])
def test_failures_other_actions_and_other_targets_send_nothing(audit: dict[str, Any]) -> None:
    assert signals_of(audit) == []


def test_an_unreadable_time_and_an_unknown_actor_are_left_out() -> None:
    audit = {**event("session.ended", actor="robot"), "time": "yesterday"}
    assert signals_of(audit) == [Signal(CAEP + "session-revoked", {"reason_admin": {"en": "The user signed out."}})]
