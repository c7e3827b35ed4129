"""The console's tests: the stack on a real HTTP server (its own token and UserInfo endpoints), operators, sessions.

The console calls its stack's token and UserInfo endpoints over HTTP, as any client does; `stack_on_http` serves the
functions of the demo stack in this process behind the local API Gateway emulator (authgate_cli.local.server) on a
free loopback port, and makes that the issuer. `operator_session` opens a console session for an operator as a
sign-in does (the store's own create), for the tests of the pages.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.functional.authorize_support import PAGE_HEADERS, headers_of, page_of
from tests.functional.person_events_support import TIME, UUID7

OLIVIA_KEY = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
OLIVIA_ID = "usr_demoolivia000000000000"
# The bar atop every console page of an operator who may find people, as its text reads.
BAR = ("Skip to the content authgate console Home People Clients Resources Tenants Identity providers Keys Events Operators Signed in "
       "as {who} Sign out")
# The bar of an admin: the stack's configuration, neither its people nor its events nor its operators.
ADMIN_BAR = ("Skip to the content authgate console Home Clients Resources Tenants Identity providers Keys Signed in as "
             "{who} Sign out")
# The bar of a support operator: the people of their tenants, and nothing else.
SUPPORT_BAR = "Skip to the content authgate console Home People Signed in as {who} Sign out"
# The headers of every console page (http.pages.headers: its forms post to this origin only).
CONSOLE_PAGE_HEADERS = {
    **PAGE_HEADERS, "Pragma": "no-cache", "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": ("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
                                "frame-ancestors 'none'; base-uri 'none'"),
}
# olivia as an audit event's actor, and the origin of a request of the tests' events.
OLIVIA = {"type": "operator", "id": "olivia", "principal": "console:usr_demoolivia000000000000"}
ORIGIN = {"source_ip": "127.0.0.1", "user_agent": ""}


@contextmanager
def stack_on_http(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The demo stack's functions on http://127.0.0.1:PORT, its issuer (the console's client ensured for it)."""
    from authgate import caches
    from authgate.console.client import ensure
    from authgate_cli.local import events
    from authgate_cli.local.routing import Router
    from authgate_cli.local.server import Emulator
    from authgate_cli.local.template import api_routes

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            path, _, query = self.path.partition("?")
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            reply = emulator.handle(events.HttpRequest(self.command, path, query, list(self.headers.items()), body))
            self.send_response(reply.status)
            for name, value in reply.headers:
                if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)

        do_GET = do_POST = _answer

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    issuer = f"http://127.0.0.1:{server.server_port}"
    monkeypatch.setenv("AUTHGATE_ISSUER", issuer)
    caches.reset()
    ensure(issuer)
    emulator = Emulator(Router(api_routes()), issuer=issuer)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield issuer
    finally:
        server.shutdown()
        server.server_close()


def operator_session(username: str = "olivia", user_id: str = OLIVIA_ID, *, age: int = 0) -> str:
    """A console session of the operator, signed in `age` seconds ago (as the callback opens one); the Cookie
    header's value that carries it."""
    from authgate import clock
    from authgate.settings import get_settings
    from authgate.stores.console_sessions import ConsoleSessionStore
    from authgate.stores.users import UserStore

    settings = get_settings()
    user = UserStore().get(settings.operators_tenant, username)
    assert user is not None
    auth_time = clock.seconds() - age
    secret, _ = ConsoleSessionStore().create(
        tenant_id=settings.operators_tenant, username=username, user_id=user_id, generation=user.session_generation,
        auth_time=auth_time, expires_at=auth_time + settings.console_max_age, sid="sid-of-" + username,
        id_token="header.claims.signature")
    return f"authgate_console={base64.urlsafe_b64encode(username.encode()).rstrip(b'=').decode()}.{secret}"


def grant(username: str, role: str, *tenants: str) -> None:
    """Make `username` (a new user of the operators tenant, when there is none) hold `role` (for `tenants`)."""
    from authgate.operators.roles import granted
    from authgate.stores.operators import OperatorStore
    from authgate.stores.users import UserStore

    store = OperatorStore()
    operator = store.get("operators", username)
    if operator is None:
        UserStore().put_hash("operators", username, "not-a-password-hash", overwrite=False,
                             user_id=f"usr_{username}")
        operator = store.get("operators", username)
        assert operator is not None
    store.set_roles(operator, granted(operator.roles, role, tenants))


def page_headers(result: dict[str, Any]) -> dict[str, str]:
    """A console page's headers but x-request-id and the binding cookie its form may set."""
    return {k: v for k, v in headers_of(result).items() if k not in ("x-request-id", "Set-Cookie")}


def console_event(method: str, path: str = "/console", query: str = "", cookie: str | None = None,
                  body: bytes = b"", content_type: str | None = None) -> dict[str, Any]:
    """The event API Gateway sends the console function for `method path?query` (Host 127.0.0.1:3000)."""
    from authgate_cli.local.events import HttpRequest, build_event

    headers = [("Host", "127.0.0.1:3000"), ("Accept", "text/html")]
    headers += [("Cookie", cookie)] if cookie else []
    headers += [("Content-Type", content_type)] if content_type else []
    proxy = path.removeprefix("/console").strip("/")
    return build_event(HttpRequest(method, path, query, headers, body),
                       resource="/console/{proxy+}" if proxy else "/console",
                       path_params={"proxy": proxy} if proxy else None)


def assert_console_failure(result: dict[str, Any], detail: str) -> None:
    """The console's sign-in failure: its error page, and the sign-in's cookie cleared."""
    assert result["multiValueHeaders"].pop("Set-Cookie") == [
        "authgate_console_sign_in=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0"]
    assert_console_error_page(result, "console_sign_in_failed", detail, 400)


def assert_console_error_page(result: dict[str, Any], code: str, detail: str, status: int) -> None:
    """A console error page: the project's error page, naming our code only, its stylesheet under the issuer."""
    from authgate.errors.catalogue import lookup
    from authgate.http.pages.stylesheet import STYLESHEET

    assert result["statusCode"] == status
    assert page_headers(result) == {**CONSOLE_PAGE_HEADERS, "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'none'; frame-ancestors 'none'; "
        "base-uri 'none'")}
    request_id = headers_of(result)["x-request-id"]
    assert page_of(result).text() == f"{lookup(code).title} {detail} Error code: {code} · request id {request_id}"
    assert f'href="http://127.0.0.1:3000/assets/authgate.css?v={STYLESHEET.version()}"' in result["body"]


def shown(result: dict[str, Any]) -> str:
    """The whole text of a console page, once its status and headers are those of a page."""
    assert result["statusCode"] == 200, result["body"][:600]
    assert page_headers(result) == CONSOLE_PAGE_HEADERS
    return page_of(result).text()


def whole(events: list[dict[str, Any]], action: str) -> dict[str, Any]:
    """The one event of `action`, its id, time and request id checked and taken out."""
    found = [dict(e) for e in events if e["action"] == action]
    assert len(found) == 1, [e["action"] for e in events]
    event = found[0]
    assert UUID7.fullmatch(event.pop("id")) and TIME.fullmatch(event.pop("time")) and event.pop("request_id")
    return event


# What a console form posts as; olivia as an event's actor; where the tests' requests come from.
FORM = "application/x-www-form-urlencoded"
OLIVIA = {"type": "operator", "id": "olivia", "principal": "console:usr_demoolivia000000000000"}
ORIGIN = {"source_ip": "127.0.0.1", "user_agent": ""}


def opened(invoke: Any, cookie: str, path: str, query: str = "") -> tuple[dict[str, Any], str]:
    """A console page, and the Cookie header that posts its form (the session and the page's CSRF binding)."""
    result = invoke("console", console_event("GET", path, query, cookie=cookie))
    binding = [c.split(";", 1)[0] for c in result["multiValueHeaders"].get("Set-Cookie", [])]
    return result, "; ".join([cookie, *binding])


def posted(invoke: Any, jar: str, path: str, fields: dict[str, str]) -> dict[str, Any]:
    """A console form's `fields` posted to `path` with the Cookie header `jar`."""
    from urllib.parse import urlencode

    return invoke("console", console_event("POST", path, cookie=jar, body=urlencode(fields).encode(),
                                           content_type=FORM))
