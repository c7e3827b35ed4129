"""What the console's unit tests hand a page: a request to it (a form's with its CSRF token), an operator signed in
with a role, the tenants and clients it shows, and the text the page shows."""

from __future__ import annotations

import html
import re
import secrets
from collections.abc import Sequence
from urllib.parse import urlencode

from authgate.console.pages import STEP
from authgate.console.session import SignedIn
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.operators.roles import Roles
from tests.functional.console_support import FORM, console_event

BINDING = "a-browser-binding-of-the-tests-0123456789"
TIMES = 1_750_000_000


def signed(role: str = "owner", *tenants: str, username: str = "olivia", name: str = "Olivia") -> SignedIn:
    """An operator holding `role` (for `tenants`), signed in at TIMES for twelve hours."""
    from authgate.operators.console_session import ConsoleSession
    from authgate.operators.model import Operator
    from authgate.users.model import User

    roles: Roles = ((role, tuple(tenants)),)
    user = User("operators", username, 0, 0, user_id=f"usr_{username}", name=name)
    return SignedIn(ConsoleSession("hash", "operators", username, user.user_id, 0, TIMES, TIMES + 43200, TIMES),
                    Operator(user, roles))


def tenants(*tenant_ids: str) -> None:
    """Tenants of those ids, with the demo seed's settings (in the test's moto)."""
    from authgate_cli.local.loaders import tenants as seed

    seed([{"tenant_id": t, "name": t, "currencies": ["usd"], "forbidden_scopes": [], "approved_clients": []}
          for t in tenant_ids])


def client(client_id: str, tenant: str = "acme", **values: object) -> None:
    """A client record of `tenant` as a store holds it (`values` by Client's field names: a registered one's
    source, say), created at TIMES."""
    from authgate.clients.model import client_of
    from authgate.stores.clients import ClientStore

    ClientStore().put(client_of({"client_id": client_id, "tenant_id": tenant, "environment": "local",
                                 "client_type": "public", "created_at": TIMES, **values}))


def get(page: str, query: Sequence[tuple[str, str]] = ()) -> Request:
    """GET /console/`page`?`query`, as API Gateway hands it to the console function."""
    return Request.from_event(console_event("GET", f"/console/{page}".rstrip("/"), urlencode(query)))


def post(page: str, fields: dict[str, str], *, session: str = "", csrf: str | None = None) -> Request:
    """A console form posted to /console/`page`: `fields`, with the nonce and CSRF token of this browser's binding
    (interaction.pages.form_fields checks them as it checks a browser's; `csrf` another token), and the Cookie
    `session` (console_support.operator_session) when given."""
    from authgate.interaction.binding import COOKIE, csrf_token

    nonce = f"{STEP}.{secrets.token_urlsafe(12)}"
    token = csrf_token(BINDING, "password:" + nonce) if csrf is None else csrf
    body = urlencode({**fields, "nonce": nonce, "csrf": token}).encode()
    cookie = f"{COOKIE}={BINDING}" + (f"; {session}" if session else "")
    return Request.from_event(console_event("POST", f"/console/{page}", cookie=cookie, body=body, content_type=FORM))


def main_text(response: Response) -> str:
    """The text of a console page's content (its <main>: the title and the body), as a person reads it."""
    assert response.status == 200, response.body
    found = re.search(r'<main id="content" class="console-page">(.*)</main>', str(response.body), re.DOTALL)
    assert found is not None
    return text(found.group(1))


def text(part: str) -> str:
    """The text of a part of a page (HTML), as a person reads it."""
    inline = re.sub(r"</?(a|strong|code|span|em)\b[^>]*>", "", part)  # within a sentence: no space
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", inline)).strip())
