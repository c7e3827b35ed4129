from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def issuer(monkeypatch):
    from authgate import settings

    monkeypatch.setenv("AUTHGATE_ISSUER", "https://auth.example.test")
    settings.reset()
    yield
    settings.reset()
