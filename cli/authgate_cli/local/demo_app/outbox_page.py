"""The demo app's view of the local stack's outbox: what a deployed stage would have mailed or called."""

from __future__ import annotations

import html
import re
import time

from authgate_cli.local.demo_app.pages import Answer, page

# A mail entry's members (authgate.mail.sender) under the names a mail reader gives them.
MAIL_HEADERS = (("sender", "From"), ("to", "To"), ("subject", "Subject"))


def entries(outbox: str) -> list[dict[str, object]]:
    """The outbox's entries, oldest first (none when the stack has no outbox)."""
    from authgate.mail import outbox as mail_outbox

    return mail_outbox.read(outbox) if outbox else []


def outbox_page(issuer: str, outbox: str) -> Answer:
    """What the stack would have sent: mail (forgotten-password links) and other deliveries, newest first."""
    rows = []
    for entry in reversed(entries(outbox)):
        shown = {k: v for k, v in entry.items() if k not in ("id", "kind", "created_at")}
        when = time.strftime("%H:%M:%S", time.gmtime(int(str(entry.get("created_at", 0)))))
        text = html.escape(str(shown.pop("text", "")))
        # A mailed link is made clickable (the reset link is the point of the page).
        text = re.sub(r"(https?://[^\s<]+)", r'<a href="\1">\1</a>', text)
        # A mail's header lines as a mail reader shows them, first; any other member after them.
        headers = "".join(f"<br>{label}: {html.escape(str(shown.pop(name)))}" for name, label in MAIL_HEADERS
                          if name in shown)
        meta = " ".join(f"<code>{html.escape(k)}</code>: {html.escape(str(v))}" for k, v in shown.items())
        rows.append(f'<li><p><strong>{html.escape(str(entry.get("kind", "")))}</strong> at {when} UTC.{headers}'
                    f'{" " + meta if meta else ""}</p><pre>{text}</pre></li>')
    body = ("<p>On the local stack nothing is mailed or delivered: it lands here instead "
            '(<a href="/outbox.json">as JSON</a>; docs/local.md, "The outbox").</p>'
            + (f'<ul class="outbox">{"".join(rows)}</ul>' if rows else "<p>The outbox is empty.</p>"))
    return page(issuer, 200, "Outbox", body)
