"""tokens.dpop_nonce: server nonces (RFC 9449 8) derived per 300 s slot from the session secret."""

from __future__ import annotations

import pytest

from authgate import caches
from authgate.tokens import dpop_nonce
from authgate.tokens.dpop_nonce import NONCE_HEADER, NONCE_SLOT_SECONDS, SlotNonces

NOW = 1_750_000_200  # a slot boundary is at 1_750_000_200 - (1_750_000_200 % 300)


def test_a_nonce_is_accepted_in_its_slot_and_the_next_one_only() -> None:
    nonces = SlotNonces(b"k" * 32)
    nonce = nonces.current(NOW)
    start = NOW - NOW % NONCE_SLOT_SECONDS
    assert nonces.current(start + NONCE_SLOT_SECONDS - 1) == nonce
    assert nonces.accepts(nonce, start + 2 * NONCE_SLOT_SECONDS - 1)  # the previous slot still counts
    assert not nonces.accepts(nonce, start + 2 * NONCE_SLOT_SECONDS)
    assert not nonces.accepts(nonce, start - 1)  # nor a nonce of a slot not yet begun
    assert len(nonce) == 43  # base64url of a SHA-256 HMAC


def test_nonces_depend_on_the_key() -> None:
    assert SlotNonces(b"a" * 32).current(NOW) != SlotNonces(b"b" * 32).current(NOW)
    assert not SlotNonces(b"a" * 32).accepts(SlotNonces(b"b" * 32).current(NOW), NOW)


def test_without_nonces_configured_nothing_is_handed_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUTHGATE_DPOP_NONCES", raising=False)
    caches.reset()
    headers: dict[str, str] = {}
    dpop_nonce.hand_out(headers, None, NOW)
    assert (dpop_nonce.checker(), headers, dpop_nonce.error_headers("use_dpop_nonce", NOW)) == (
        None, {}, {NONCE_HEADER: ""})


def test_with_nonces_a_changed_nonce_is_handed_out_and_a_current_one_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTHGATE_DPOP_NONCES", "true")
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "s" * 32)
    caches.reset()
    expected = SlotNonces(b"s" * 32).current(NOW)
    assert dpop_nonce.error_headers("use_dpop_nonce", NOW) == {NONCE_HEADER: expected}
    assert dpop_nonce.error_headers("invalid_dpop_proof", NOW) == {}
    stale: dict[str, str] = {}
    dpop_nonce.hand_out(stale, "an-old-nonce", NOW)
    fresh: dict[str, str] = {}
    dpop_nonce.hand_out(fresh, expected, NOW)
    assert (stale, fresh) == ({NONCE_HEADER: expected}, {})


@pytest.mark.parametrize("nonce", ["é" * 43, "\ud800", "x" * 43, ""])
def test_a_nonce_of_any_text_is_compared_without_raising(nonce: str) -> None:
    assert SlotNonces(b"k" * 32).accepts(nonce, 1_750_000_000) is False
