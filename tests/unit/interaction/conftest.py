"""Fixtures of the interaction's unit tests: a browser's request to a flow's page, and a hand-off whose log is
kept."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

import pytest

from authgate.http.request import Request
from authgate_cli.local.events import HttpRequest, build_event

FORM = "application/x-www-form-urlencoded"
PageRequest = Callable[..., Request]


@pytest.fixture
def page_request() -> PageRequest:
    """A browser's request to a page (GET, or POST of `fields`), with `cookie`; its source address `source_ip`."""

    def build(fields: list[tuple[str, str]] | None = None, cookie: str | None = None, path: str = "/oauth/device",
              source_ip: str = "192.0.2.7") -> Request:
        headers = [("Host", "127.0.0.1:3000")] + ([("Cookie", cookie)] if cookie else [])
        if fields is None:
            raw = HttpRequest("GET", path, "", headers, source_ip=source_ip)
        else:
            raw = HttpRequest("POST", path, "", [*headers, ("Content-Type", FORM)], urlencode(fields).encode(),
                              source_ip=source_ip)
        return Request.from_event(build_event(raw, resource=path, path_params=None))

    return build
