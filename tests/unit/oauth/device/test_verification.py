"""oauth.device.verification: each POST is dispatched on the step its form's nonce names, and a form whose action is
not its step's, or that carries another step's field, is stale (RFC 8628 3.3)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlencode

import pytest

from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.interaction.pages import csrf_state
from authgate.oauth.device.verification import post_device
from authgate_cli.local.events import HttpRequest, build_event

BINDING = "authgate_binding=" + "b" * 43
STALE = "The form has expired or was altered. Open it again."


@pytest.fixture(autouse=True)
def secret(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "test-session-secret-0123456789abcdef")
    caches.reset()
    yield
    caches.reset()


def page(fields: list[tuple[str, str]] | None = None) -> Request:
    headers = [("Host", "127.0.0.1:3000"), ("Cookie", BINDING), ("Content-Type", "application/x-www-form-urlencoded")]
    raw = HttpRequest("POST" if fields is not None else "GET", "/oauth/device", "", headers,
                      urlencode(fields or []).encode())
    return Request.from_event(build_event(raw, resource="/oauth/device", path_params=None))


@pytest.mark.parametrize(("step", "fields"), [
    ("decision", [("action", "factor"), ("code", "123456")]),        # a decision form posted as the factor step's
    ("code", [("action", "decide"), ("decision", "approve")]),       # the code's form posted as a decision
    ("decision", [("action", "decide"), ("factor_ticket", "t")]),    # another step's own field
    ("account", [("action", "decide")]),                             # a step this page does not have
])
def test_a_form_of_another_step_is_stale_before_its_code_is_looked_up(step: str, fields: list[tuple[str, str]]) -> None:
    state, _cookie = csrf_state(page(), step)
    with pytest.raises(ApiError) as stale:
        post_device(page([*state, ("user_code", "BCDFG-HJKLM"), *fields]))
    assert (stale.value.code, stale.value.status, stale.value.detail) == ("invalid_request", 400, STALE)
