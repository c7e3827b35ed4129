"""Passkeys in-process: a user's passkey made by the software authenticator (tests/webauthn_authenticator.py) for an
issuer on http://localhost:3000 (the `localhost` fixture, conftest.py), and a ceremony page answered with it."""

from __future__ import annotations

import json
import re
from typing import Any

from authgate.clock import ManualClock
from tests.functional.authorize_support import Page
from tests.webauthn_authenticator import SoftAuthenticator

ISSUER = "http://localhost:3000"


def enrolled(clock: ManualClock, tenant_id: str = "demo", username: str = "alice") -> SoftAuthenticator:
    """A passkey of the user, registered as the account page registers one."""
    import secrets

    from authgate.stores.passkeys import PasskeyStore
    from authgate.users import passkey_ceremonies

    device = SoftAuthenticator(origin=ISSUER)
    challenge = secrets.token_bytes(32)
    PasskeyStore().add(passkey_ceremonies.verify_registration(
        credential=device.register(challenge), challenge=challenge, rp_id="localhost", origin=ISSUER,
        tenant_id=tenant_id, username=username, name="key", now=int(clock())))
    return device


def options_of(page: Page) -> dict[str, Any]:
    """The ceremony's options (the page's JSON data block)."""
    found = re.search(r'<script type="application/json" id="passkey-options">(.*?)</script>', page.body)
    assert found is not None
    return dict(json.loads(found.group(1)))


def answered(page: Page, device: SoftAuthenticator, **kwargs: Any) -> list[tuple[str, str]]:
    """The ceremony form's fields with `device`'s assertion of the page's challenge in `credential`."""
    from authgate import base64url

    credential = device.assertion(base64url.decode(options_of(page)["challenge"]), **kwargs)
    return [*((k, v) for k, v in page.hidden().items() if k != "credential"), ("credential", json.dumps(credential))]
