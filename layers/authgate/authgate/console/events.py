"""GET /console/events and /console/event: the audit trail's kept events, newest first, and one event whole.

The events are read from where `authgate events list` reads them, by the same code (authgate.audit_trail.query): the
stage's audit bucket, the local stack's trail directory. The filters are the command's: tenant, person (a user id or
username, as actor or target), client, action (the catalogue's, or a family `token.*`), and the period (`since`,
`until`: ISO 8601 in UTC or an age, 24 hours before `until` by default; a time the command refuses is refused with
its words). PAGE_SIZE events a page; "Older events" carries the period's start, the last shown event's second as its
end and that event's id, so that the next page goes on where this one stopped whatever arrives meanwhile. The page
ends with the form that verifies the chain (console.verification). Allowed by `events.view` (owner, auditor), judged
before anything is read. A trail AWS cannot read now (TrailUnreadable) is the 503 page (authgate.failures).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from authgate.console.pages import Link, allow, definitions, links, page, query_value, table, url
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response

PAGE_SIZE = 50
_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
# The filters' query parameters and their labels (the command's options of the same names).
FILTERS = (("tenant", "Tenant"), ("user", "Person (username or user id)"), ("client", "Client id"),
           ("action", "Action"), ("since", "Since"), ("until", "Until"))


def get_events(request: Request, signed: SignedIn) -> Response:
    from authgate.audit_trail.query import Filters, InvalidTime, matcher, period

    asked = {name: query_value(request, name, 64 if name == "tenant" else 256).strip() for name, _ in FILTERS}
    allow(signed, "events.view", asked["tenant"] or None)
    before = query_value(request, "before", 36)
    try:
        since_ms, until_ms = period(asked["since"] or None, asked["until"] or None)
    except InvalidTime as exc:
        raise ApiError("invalid_request", f"{exc}.") from None
    match = matcher(Filters(asked["tenant"], asked["user"], asked["client"], asked["action"]))
    found = _after(kept(since_ms, until_ms, match), before)
    shown, more = found[:PAGE_SIZE], len(found) > PAGE_SIZE
    from authgate.console.verification import form as verify_form

    body = "\n".join((_form(request, asked), _results(request, asked, shown, more, since_ms, bool(before)),
                      verify_form(request)))
    return page(request, signed, "Events", body, current="events")


def get_event(request: Request, signed: SignedIn) -> Response:
    allow(signed, "events.view")
    event_id = query_value(request, "id", 36)
    if not _ID.fullmatch(event_id):
        raise ApiError("invalid_request", "Name the event with id, the event's UUID.")
    ms = int(event_id.replace("-", "")[:12], 16)
    found = kept(ms, ms, lambda e: e.get("id") == event_id)
    if not found:
        raise ApiError("not_found", f"The audit trail keeps no event {event_id}.")
    event = found[0]
    body = "\n".join((definitions("Event", described(event)), definitions(
        "Details", ((name, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
                    for name, value in sorted((event.get("details") or {}).items())), empty="No details."),
                      links([Link(url(request, "events", [("action", event["action"])]),
                                  f"Events of {event['action']}")])))
    return page(request, signed, f"{event['action']} at {event['time']}", body, current="events")


def kept(since_ms: int, until_ms: int | None, match: Any) -> list[dict[str, Any]]:
    """The kept events of the period that `match`, newest first (the trail's reader); none where no trail is
    kept (a stack that names neither a bucket nor a directory)."""
    from authgate.audit_trail.consumer import NoTrail
    from authgate.audit_trail.query import newest

    try:
        return newest(since_ms, until_ms, match)
    except NoTrail:
        return []


def described(event: dict[str, Any]) -> list[tuple[str, str]]:
    """An event's members as the console shows them (its details apart)."""
    from authgate.audit_trail.query import summary

    time, action, outcome, tenant, actor, target = summary(event)
    principal = event["actor"].get("principal")
    return [("Time", time), ("Action", action), ("Outcome", outcome), ("Tenant", tenant),
            ("Actor", actor + (f" ({principal})" if principal else "")), ("Target", target),
            ("Source address", event.get("source_ip") or "-"), ("User agent", event.get("user_agent") or "-"),
            ("Request id", event.get("request_id") or "-"), ("Event id", event.get("id") or "-")]


def rows(request: Request | None, events: Iterable[dict[str, Any]]) -> list[Sequence[str | Link]]:
    """Table rows of events: time (a link to the event's page, given the request), action, outcome, tenant, actor,
    target, source address."""
    from authgate.audit_trail.query import summary

    out: list[Sequence[str | Link]] = []
    for event in events:
        time, *rest = summary(event)
        first: str | Link = Link(url(request, "event", [("id", event["id"])]), time) if request else time
        out.append((first, *rest, event.get("source_ip") or "-"))
    return out


HEADINGS = ("Time", "Action", "Outcome", "Tenant", "Actor", "Target", "Source address")


def _after(events: list[dict[str, Any]], before: str) -> list[dict[str, Any]]:
    """The events after the one `before` names (newest first), all when it is not among them."""
    ids = [e.get("id") for e in events]
    return events[ids.index(before) + 1:] if before in ids else events


def _form(request: Request, asked: dict[str, str]) -> str:
    from authgate.audit.catalogue import catalogue
    from authgate.stores.tenants import TenantStore

    e = html.escape
    tenants = sorted(t.tenant_id for t in TenantStore().list())
    # What was asked stays a choice (a tenant deleted since, a family such as token.*).
    choices = {name: ["", *known] + ([asked[name]] if asked[name] and asked[name] not in known else [])
               for name, known in (("tenant", tenants), ("action", list(catalogue())))}
    fields = []
    for name, label in FILTERS:
        if name in choices:
            options = "\n".join(f'<option value="{e(v)}"{" selected" if v == asked[name] else ""}>{e(v or "any")}'
                                "</option>" for v in choices[name])
            fields.append(f'<label for="{name}">{e(label)}</label>\n<select id="{name}" name="{name}">\n{options}\n'
                          "</select>")
        else:
            hint = ' placeholder="24h, 7d or 2026-01-31"' if name in ("since", "until") else ""
            fields.append(f'<label for="{name}">{e(label)}</label>\n<input id="{name}" name="{name}" type="text" '
                          f'value="{e(asked[name])}" autocomplete="off" spellcheck="false"{hint}>')
    return (f'<form class="search" method="get" action="{e(url(request, "events"))}" role="search">\n'
            + "\n".join(fields) + '\n<div class="actions"><button type="submit">Show</button></div>\n</form>')


def _results(request: Request, asked: dict[str, str], shown: list[dict[str, Any]], more: bool, since_ms: int,
             continued: bool) -> str:
    from authgate.audit.event import iso_time

    if not shown:
        return '<p role="status">No event matches.</p>'
    caption = "Events, newest first" + (" (continued)" if continued else "")
    older = ""
    if more:
        last = shown[-1]
        end = int(last["id"].replace("-", "")[:12], 16) // 1000 * 1000 + 1000  # the next second: ISO has no ms here
        query = [(k, v) for k, v in asked.items() if v and k not in ("since", "until")]
        query += [("since", iso_time(since_ms)), ("until", iso_time(end).replace(".000Z", "Z")), ("before", last["id"])]
        older = f'\n<p><a href="{html.escape(url(request, "events", query))}">Older events</a></p>'
    return table(caption, HEADINGS, rows(request, shown)) + older
