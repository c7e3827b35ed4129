"""A link onward to an address this server cannot vouch for (RFC 9700 4.11.2): the person is told, and decides.

A self-registered application's redirect URIs were chosen by whoever registered it. Where a
registration by an administrator would be followed at once (an authorization error, the end of a
sign-out), such an address is offered instead, its origin named, so that nobody can use this
server's name to send people to a site of their choosing without a click that knows where it goes.
"""

from __future__ import annotations

import html
from urllib.parse import urlsplit


def origin(location: str) -> str:
    """scheme://host[:port] of `location`, as the person should read it (no user information)."""
    parts = urlsplit(location)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}" if parts.netloc else f"{parts.scheme}:"


def onward_link(location: str) -> str:
    """HTML paragraphs offering `location`, escaped."""
    e = html.escape
    where = e(origin(location))
    return (f"<p>The application asks to take you to <strong>{where}</strong>. It registered itself with this server, "
            "which cannot vouch for that address: go on only if you trust it.</p>\n"
            f'<p><a href="{e(location)}" rel="noreferrer">Continue to {where}</a></p>')
