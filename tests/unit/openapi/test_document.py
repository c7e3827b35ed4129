"""openapi.document: the committed openapi.json, served with this API's URL as its server."""

from __future__ import annotations

import json

import pytest

from authgate import caches
from authgate.http.request import Request
from authgate.openapi.document import DOCUMENT_PATH, get_openapi
from tests.events import event


def test_the_document_is_the_committed_one_with_this_apis_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUTHGATE_ISSUER", raising=False)
    caches.reset()
    response = get_openapi(Request.from_event(event(domain="abc.example", stage="prod")))
    served = json.loads(response.body)
    committed = json.loads(DOCUMENT_PATH.read_text(encoding="utf-8"))
    assert served == {**committed, "servers": [{"url": "https://abc.example/prod"}]}
    assert (response.status, response.headers) == (200, {"Content-Type": "application/json",
                                                         "Cache-Control": "public, max-age=300"})
