"""Server-provided DPoP nonces (RFC 9449 8, 9), stateless: a MAC of the current time slot.

Off unless the deployment sets AUTHGATE_DPOP_NONCES (template parameter DpopNonces). A nonce is
base64url(HMAC-SHA256(key, "dpop-nonce" || slot)) for the slot `now // NONCE_SLOT_SECONDS`; the
current and the previous slot's nonces are accepted, so a nonce lives one to two slots and a
client refetches it at most once a slot. Nothing is written per request (the MAC needs no
table), and every function of a stack computes the same nonce, so a nonce from the token
endpoint is good at the resource too. The key is derived from the stack's sealing key
(Secrets Manager, read once per container): an unpredictable nonce is what stops proofs made in
advance (RFC 9449 11.2), and the secret already exists for the consent form.
"""

from __future__ import annotations

import hashlib
import hmac

from authgate import base64url
from authgate.caches import cached
from authgate.settings import get_settings
from authgate.stores.sealing_key import sealing_key

NONCE_SLOT_SECONDS = 300
# RFC 9449 8.1: the response header a nonce travels in.
NONCE_HEADER = "DPoP-Nonce"
_PURPOSE = b"authgate dpop-nonce v1"


class SlotNonces:
    """The nonces of one key: `current(now)`, and `accepts` for the current and previous slot."""

    def __init__(self, key: bytes) -> None:
        self._key = hmac.new(key, _PURPOSE, hashlib.sha256).digest()

    def for_slot(self, slot: int) -> str:
        return base64url.encode(hmac.new(self._key, str(slot).encode("ascii"), hashlib.sha256).digest())

    def current(self, now: int) -> str:
        return self.for_slot(now // NONCE_SLOT_SECONDS)

    def accepts(self, nonce: str, now: int) -> bool:
        slot = now // NONCE_SLOT_SECONDS
        # Bytes, not str: compare_digest refuses a non-ASCII str with TypeError.
        sent = nonce.encode("utf-8", "surrogatepass")
        return any(hmac.compare_digest(sent, self.for_slot(s).encode("ascii")) for s in (slot, slot - 1))


def checker() -> SlotNonces | None:
    """The deployment's nonces, or None when it does not ask for them."""
    if not get_settings().dpop_nonces:
        return None
    return _nonces()


def current(now: int) -> str:
    """The nonce to hand out now (RFC 9449 8.1 DPoP-Nonce); only called when nonces are on."""
    nonces = checker()
    return nonces.current(now) if nonces is not None else ""


@cached
def changed(used: str | None, now: int) -> str | None:
    """The nonce a successful response hands out when it differs from the one the proof used (RFC 9449 8.2)."""
    nonces = checker()
    if nonces is None:
        return None
    fresh = nonces.current(now)
    return None if used == fresh else fresh


def error_headers(code: str, now: int) -> dict[str, str]:
    """The headers of a refused proof: the nonce to use when the refusal is use_dpop_nonce (RFC 9449 8)."""
    return {NONCE_HEADER: current(now)} if code == "use_dpop_nonce" else {}


def hand_out(response_headers: dict[str, str], used: str | None, now: int) -> None:
    """Add the next nonce to a successful response's headers when it changed (RFC 9449 8.2)."""
    fresh = changed(used, now)
    if fresh:
        response_headers[NONCE_HEADER] = fresh


@cached
def _nonces() -> SlotNonces:
    return SlotNonces(sealing_key())
