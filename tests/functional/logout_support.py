"""Signing in and out through the authorize function, for the sign-out tests (RP-Initiated and Back-Channel Logout 1.0)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from authgate_cli.local.events import HttpRequest, build_event
from tests.demo import ISSUER
from tests.functional.authorize_support import Browser, web_params

ALICE = "usr_demoalice0000000000000"
BACK = "http://127.0.0.1:8765/"
CLEARED = "authgate_session=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0"


def signed_in(browser: Browser, upstream: Any = None) -> Any:
    """A session of alice in `browser` (opened by `upstream`'s sign-in: a sessions.model.Upstream, or a local one)."""
    from authgate.stores.sessions import SessionStore

    secret, session = SessionStore().create(tenant_id="demo", user_id=ALICE, username="alice", acr="password",
                                            amr=("fed",) if upstream else ("pwd",), generation=0, upstream=upstream)
    browser.get(web_params())  # the browser's binding cookie
    browser.cookie = f"{browser.cookie}; authgate_session={secret}"
    return session


def hint(session: Any = None, *, sub: str = ALICE, client_id: str = "demo-web") -> str:
    from authgate.oauth.token.id_token import issue_id_token
    from authgate.single_use.authentication import Authentication

    return issue_id_token(issuer=ISSUER, client_id=client_id, access_token="at",
                          authentication=Authentication(user_id=sub, auth_time=1, sid=session.sid if session else ""))


def logout(browser: Browser, params: list[tuple[str, str]], method: str = "GET") -> dict[str, Any]:
    headers = [("Host", "127.0.0.1:3000"), ("Accept", "text/html")]
    if browser.cookie:
        headers.append(("Cookie", browser.cookie))
    if method == "POST":
        request = HttpRequest("POST", "/oauth/logout", "",
                              headers + [("Content-Type", "application/x-www-form-urlencoded")],
                              urlencode(params).encode())
    else:
        request = HttpRequest("GET", "/oauth/logout", urlencode(params), headers)
    result = browser.invoke("authorize", build_event(request, resource="/oauth/logout", path_params=None))
    browser.keep_cookies(result)
    return result


def with_backchannel(client_id: str, uri: str) -> None:
    from authgate.stores.clients import ClientStore

    store = ClientStore()
    client = store.get(client_id)
    assert client is not None
    store.replace(client._replace(backchannel_logout_uri=uri, backchannel_logout_session_required=True))


def used_by(session: Any, *client_ids: str) -> Any:
    from authgate.stores.sessions import SessionStore

    for client_id in client_ids:
        SessionStore().used_by(session, client_id)
    return session


def queued() -> list[dict[str, Any]]:
    """What waits on the deliveries queue now (received with no visibility timeout: left there)."""
    from authgate import aws
    from authgate.settings import get_settings

    answer = aws.sqs().receive_message(QueueUrl=get_settings().deliveries_queue, MaxNumberOfMessages=10,
                                       VisibilityTimeout=0)
    return [json.loads(m["Body"]) for m in answer.get("Messages") or []]
