"""oauth.backchannel.approval_page: what the approval page hands the interaction (a sign-in at mfa in one form, of the
person the request names), and the forms it takes (CIBA Core 1.0; docs/ciba.md)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlencode

import pytest

from authgate.approvals.backchannel_request import BackchannelRequest
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.interaction import messages
from authgate.interaction.pages import csrf_state
from authgate.oauth.backchannel.approval_page import hand_off, post_approve
from authgate_cli.local.events import HttpRequest, build_event

BOB = BackchannelRequest(key="k", client_id="demo-web", tenant_id="demo", user_id="usr_demobob000000000000000",
                         username="bob", scope="openid", binding_message="", state="pending", issued_at=0,
                         expires_at=300, interval=5)
BINDING = "authgate_binding=" + "b" * 43
STALE = "The form has expired or was altered. Open it again."


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "test-session-secret-0123456789abcdef")
    caches.reset()
    yield
    caches.reset()


def page(fields: list[tuple[str, str]] | None = None) -> Request:
    headers = [("Host", "127.0.0.1:3000"), ("Cookie", BINDING), ("Content-Type", "application/x-www-form-urlencoded")]
    raw = HttpRequest("POST" if fields is not None else "GET", "/oauth/approve", "", headers,
                      urlencode(fields or []).encode())
    return Request.from_event(build_event(raw, resource="/oauth/approve", path_params=None))


def test_the_approval_asks_the_requests_person_at_mfa_in_one_form_and_opens_no_session() -> None:
    asked = hand_off(BOB)
    assert (asked.tenant.tenant_id, asked.username, asked.hinted_sub, asked.essential_acr, asked.code, asked.session,
            asked.words) == ("demo", "bob", BOB.user_id, ("mfa",), "required", False, messages.APPROVAL)
    assert hand_off(BOB._replace(username="")).username is None  # named by an id_token_hint: typed on the page


@pytest.mark.usefixtures("secret")
def test_a_form_of_another_page_is_stale_before_the_link_is_read() -> None:
    state, _cookie = csrf_state(page(), "factor")
    with pytest.raises(ApiError) as stale:
        post_approve(page([*state, ("token", "t"), ("decision", "approve")]))
    assert (stale.value.code, stale.value.detail) == ("invalid_request", STALE)
