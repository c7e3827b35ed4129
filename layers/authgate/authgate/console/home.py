"""GET /console: who is signed in, with which roles, until when, and what they may open."""

from __future__ import annotations

import html

from authgate.console.pages import allow_somewhere, page, url, when
from authgate.console.sections import SECTIONS
from authgate.console.session import SignedIn
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.operators import roles


def get_home(request: Request, signed: SignedIn) -> Response:
    allow_somewhere(signed, "console.home")  # support's role is held for tenants: it opens the home page too
    operator, session = signed.operator, signed.session
    name = f" ({html.escape(operator.user.name)})" if operator.user.name else ""
    links = "\n".join(f'<li><a href="{html.escape(url(request, s.page))}">{s.label}</a>: {s.what}</li>'
                      for s in SECTIONS if s.what and roles.reach(operator.roles, s.action).anywhere)
    body = (f"<p>You are <strong>{html.escape(operator.username)}</strong>{name}, with the roles "
            f"<strong>{html.escape(operator.described())}</strong>.</p>\n"
            f"<p>You signed in at {when(session.auth_time)}; this sign-in serves the console until "
            f"{when(session.expires_at)}, then you sign in again.</p>\n"
            + (f"<h2>What you can open</h2>\n<ul>\n{links}\n</ul>" if links else ""))
    return page(request, signed, "Console", body, current="")
