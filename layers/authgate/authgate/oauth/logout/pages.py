"""The sign-out pages (OpenID Connect RP-Initiated Logout 1.0 section 2, 3): the confirmation, and "signed out".

`ended` is the end of every sign-out, at /oauth/logout or back from the upstream identity provider's
own sign-out: the redirect to the application, or the "signed out" page. When the upstream's
session could not be ended (unreachable, or it did not confirm), the page says so and offers the
application's address as a link rather than following it: the person must learn that they are
still signed in there (a shared computer), which a redirect would hide.

Every value is HTML-escaped; the pages carry authgate.http.pages' header set (never cached or
framed, no Referer, the shared stylesheet and icon only); the confirmation form may only post to this
origin.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import NamedTuple

from authgate.http.pages import head
from authgate.http.pages.headers import page_headers
from authgate.http.pages.onward import onward_link, origin
from authgate.http.response import NO_STORE, Response

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{title}</title>
{head_links}
</head>
<body>
<main>
<h1>{title}</h1>
{content}
</main>
</body>
</html>
"""


def _page(title: str, content: str, form: bool = False) -> Response:
    body = _PAGE.format(title=html.escape(title), head_links=head.links(), content=content)
    return Response(200, body, page_headers(form_action=["'self'"] if form else ()))


def confirm(user: str, client_name: str, hidden: Sequence[tuple[str, str]]) -> Response:
    """Ask the person before ending the session: nothing proved the request came from an application they use."""
    e = html.escape
    asking = f"<strong>{e(client_name)}</strong> asks" if client_name else "An application asks"
    fields = "\n".join(f'<input type="hidden" name="{e(name)}" value="{e(value)}">' for name, value in hidden)
    return _page("Sign out?", f"""<p>{asking} to sign you out of this server. You are signed in as <strong>{e(user)}</strong>.</p>
<form method="post" action="logout">
{fields}
<div class="actions">
<button type="submit" name="confirm" value="yes">Sign out</button>
</div>
</form>""", form=True)


class Onward(NamedTuple):
    """Where a sign-out ends: the application's registered post-logout URI with its state ("" for the page), and
    whether it is followed at once (its registration is vouched for) or only offered as a link."""

    location: str = ""
    follow: bool = False


def ended(onward: Onward, note: str = "") -> Response:
    """The redirect to `onward`, or the "signed out" page; `note`: what the page adds about the upstream sign-out."""
    if note:
        e = html.escape
        link = "" if not onward.location else onward_link(onward.location) if not onward.follow else (
            f'<p><a href="{e(onward.location)}" rel="noreferrer">Continue to {e(origin(onward.location))}</a></p>')
        return _page("You are signed out", f"<p>You are signed out of this server.</p>\n<p>{e(note)}</p>"
                                           + (f"\n{link}" if link else ""))
    if not onward.location:
        return signed_out()
    if not onward.follow:
        return signed_out(onward.location)
    return Response(302, "", {"Location": onward.location, **NO_STORE, "Referrer-Policy": "no-referrer"})


def signed_out(onward: str = "") -> Response:
    """The end, when no redirect back to an application is trusted (RP-Initiated Logout 1.0 section 3); `onward`: the
    registered URI of a self-registered application, offered as a link that names where it goes (RFC 9700 4.11.2)."""
    if onward:
        return _page("You are signed out", f"<p>You are signed out.</p>\n{onward_link(onward)}")
    return _page("You are signed out", "<p>You are signed out. You can close this window.</p>")
