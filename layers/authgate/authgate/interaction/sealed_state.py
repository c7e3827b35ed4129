"""A step's own state, sealed: a payload and its expiry, HMAC-signed under the step's purpose label (interaction.binding's
key), so that the browser carries it and cannot alter it (a second-factor step's ticket, a forced change's ticket)."""

from __future__ import annotations

import hmac
import json
from typing import Any

from authgate import base64url, clock
from authgate.interaction.binding import mac


class FormStateInvalid(Exception):
    """The posted form state is missing, altered, expired, or not bound to this browser."""


def seal_state(purpose: bytes, payload: dict[str, Any], ttl: int) -> str:
    """`payload` and an expiry `ttl` seconds from now, HMAC-signed under `purpose`."""
    data = json.dumps({**payload, "exp": clock.seconds() + ttl}, separators=(",", ":"), sort_keys=True).encode()
    return f"{base64url.encode(data)}.{base64url.encode(mac(purpose, data))}"


def open_state(purpose: bytes, token: str) -> dict[str, Any]:
    """The payload of a state sealed under `purpose` and not expired; FormStateInvalid otherwise."""
    try:
        data_part, mac_part = token.split(".")
        data, signature = base64url.decode(data_part), base64url.decode(mac_part)
    except ValueError:
        raise FormStateInvalid("malformed step state") from None
    if len(token) > 8192 or not hmac.compare_digest(signature, mac(purpose, data)):
        raise FormStateInvalid("step state signature does not verify")
    payload: dict[str, Any] = json.loads(data)
    if int(payload["exp"]) <= clock.seconds():
        raise FormStateInvalid("step state expired")
    return payload
