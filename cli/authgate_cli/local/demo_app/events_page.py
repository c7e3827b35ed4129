"""The demo app's view of the local stack's audit trail: the newest events it kept (docs/audit.md)."""

from __future__ import annotations

import html
from typing import Any

from authgate_cli.local.demo_app.pages import Answer, page

SHOWN = 50


def newest(trail: str) -> list[dict[str, Any]]:
    """The newest kept events of the trail's directory, newest first (none without a trail)."""
    if not trail:
        return []
    from authgate.audit_trail.directory import DirectoryStore
    from authgate.audit_trail.reader import Follower
    from authgate.audit_trail.trail import Trail

    store = DirectoryStore(trail)
    return list(reversed(Follower(Trail(store, store.mac())).poll()[-SHOWN:]))


def events_page(issuer: str, trail: str) -> Answer:
    rows = []
    for e in newest(trail):
        outcome = e["outcome"] + (f" ({e['reason']})" if e.get("reason") else "")
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in (
            e["time"][11:23], e["action"], outcome, e.get("tenant") or "-",
            f"{e['actor'].get('type')}: {e['actor'].get('id')}", f"{e['target'].get('type')}: {e['target'].get('id')}",
            e.get("source_ip") or "-")) + "</tr>")
    table = ('<table class="events"><tr><th>Time (UTC)</th><th>Action</th><th>Outcome</th><th>Tenant</th>'
             f'<th>Actor</th><th>Target</th><th>From</th></tr>{"".join(rows)}</table>')
    body = ("<p>Every sign-in, token, charge and change the stack records, newest first (the last "
            f"{SHOWN}). <code>authgate events list</code>, <code>tail</code> and <code>verify</code> read the "
            'same trail (docs/audit.md).</p>' + (table if rows else "<p>Nothing recorded yet.</p>"))
    return page(issuer, 200, "Audit trail", body)
