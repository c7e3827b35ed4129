"""A person's page's "Recent events": the newest events of the last 24 hours whose actor or target is the person.

Read as the Events page and `authgate events list --tenant T --user U` read them (authgate.audit_trail.query): the
events of the person's tenant that name their user id, or their username (a sign-in refused before an account was
found names only the username). The person's page is allowed by `people.view` in their tenant, so support sees the
events of the people of its tenants; an operator who may open the Events page (owner, auditor) gets each event's own
page and the whole period there. When the trail cannot be read (AWS refused or failed the read) the rest of the
person's page still shows, and this section says so; AWS's code goes to the log once.
"""

from __future__ import annotations

import html
from typing import Any

from authgate.console.events import HEADINGS, kept, rows
from authgate.console.pages import Link, links, section, table, url
from authgate.console.session import SignedIn
from authgate.http.request import Request
from authgate.operators import roles
from authgate.users.model import User

RECENT = 10
UNREADABLE = "The events cannot be read now: AWS refused or failed the read of the audit trail. Try again in a minute."


def recent_events(request: Request, signed: SignedIn, user: User) -> str:
    from authgate import clock
    from authgate.audit_trail.errors import TrailUnreadable
    from authgate.audit_trail.query import DEFAULT_PERIOD_MS, Filters, matcher
    from authgate.logs import get_logger

    names = [matcher(Filters(user.tenant_id, name)) for name in (user.user_id, user.username) if name]

    def match(event: dict[str, Any]) -> bool:
        return any(named(event) for named in names)

    readable = roles.may(signed.operator.roles, "events.view")
    more = links([Link(url(request, "events", [("tenant", user.tenant_id), ("user", user.user_id or user.username)]),
                       f"Every event of {user.username}")]) if readable else ""
    try:
        found = kept(clock.millis() - DEFAULT_PERIOD_MS, None, match)[:RECENT]
    except TrailUnreadable as exc:
        get_logger().warning("audit trail unreadable", extra={"operation": exc.operation, "aws_error": exc.code})
        return section("Recent events", f"<p>{UNREADABLE}</p>\n{more}")
    if not found:
        return section("Recent events", f"<p>No event of the last 24 hours names {html.escape(user.username)}.</p>\n{more}")
    shown = f"{len(found)} newest event{'s' if len(found) != 1 else ''} of the last 24 hours, newest first"
    return section("Recent events", table(shown, HEADINGS, rows(request if readable else None, found)) + f"\n{more}")
