"""console.sign_out: the console's session ends, then the stack's sign-in session at its end_session endpoint
(RP-Initiated Logout 1.0 2-3), which brings the browser back to the "signed out" page."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from authgate.console.sign_out import get_signed_out, post_sign_out
from authgate.errors import ApiError
from tests.unit.console.page_support import get, post

CLEARED = "authgate_console=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0"


@pytest.fixture
def session(aws: None) -> str:
    """The Cookie of olivia's console session (an operator's user item and the session item, as a sign-in makes)."""
    from authgate.stores.users import UserStore
    from tests.functional.console_support import OLIVIA_ID, operator_session

    UserStore().put_hash("operators", "olivia", "not-a-hash", user_id=OLIVIA_ID)
    return operator_session()


def test_the_signed_out_page_offers_to_sign_in_again() -> None:
    answer = get_signed_out(get("signed-out"))
    assert answer.status == 200
    assert ('<p role="status">You have signed out of the console.</p>\n'
            '<p><a href="http://127.0.0.1:3000/console">Sign in again</a></p>') in str(answer.body)


def test_without_a_session_the_browser_goes_straight_to_the_signed_out_page(aws: None) -> None:
    answer = post_sign_out(post("sign-out", {}))
    assert (answer.status, answer.headers, answer.multi_headers) == (
        303, {"Location": "http://127.0.0.1:3000/console/signed-out", "Cache-Control": "no-store", "Pragma": "no-cache",
              "Referrer-Policy": "no-referrer"}, {"Set-Cookie": [CLEARED]})


def test_a_session_ends_here_then_at_the_stacks_end_session_endpoint(session: str) -> None:
    from authgate.console.session import signed_in

    request = post("sign-out", {}, session=session)
    assert signed_in(request) is not None
    answer = post_sign_out(request)
    assert (answer.status, answer.multi_headers) == (303, {"Set-Cookie": [CLEARED]})
    location = urlsplit(answer.headers.pop("Location"))
    assert answer.headers == {"Cache-Control": "no-store", "Pragma": "no-cache", "Referrer-Policy": "no-referrer"}
    assert (location.netloc, location.path) == ("127.0.0.1:3000", "/oauth/logout")
    assert parse_qs(location.query) == {
        "id_token_hint": ["header.claims.signature"], "client_id": ["authgate-console"],
        "post_logout_redirect_uri": ["http://127.0.0.1:3000/console/signed-out"]}
    assert signed_in(request) is None  # the session item is gone: the cookie opens nothing any more


def test_a_form_without_its_csrf_token_ends_nothing(session: str) -> None:
    from authgate.console.session import signed_in
    from authgate.interaction.pages import STALE

    request = post("sign-out", {}, session=session, csrf="forged")
    with pytest.raises(ApiError) as refused:
        post_sign_out(request)
    assert (refused.value.code, refused.value.detail) == ("invalid_request", STALE)
    assert signed_in(request) is not None
