"""grant_types: the grant types a stack serves, named once; the password grant only when the stack enables it."""

from __future__ import annotations

import pytest

from authgate import caches
from authgate.grant_types import GRANT_TYPES, PASSWORD, served


def test_every_grant_type_is_served_the_password_grant_only_when_enabled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUTHGATE_PASSWORD_GRANT", raising=False)
    caches.reset()
    assert served() == ["authorization_code", "refresh_token", "client_credentials",
                        "urn:ietf:params:oauth:grant-type:token-exchange",
                        "urn:ietf:params:oauth:grant-type:jwt-bearer",
                        "urn:ietf:params:oauth:grant-type:device_code", "urn:openid:params:grant-type:ciba"]
    monkeypatch.setenv("AUTHGATE_PASSWORD_GRANT", "true")
    caches.reset()
    assert served() == list(GRANT_TYPES) and PASSWORD in served()
    caches.reset()
