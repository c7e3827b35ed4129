"""authgate_cli.local.demo_app.outbox_page: the outbox as a mail reader shows it, newest first."""

from __future__ import annotations

from pathlib import Path

from authgate.mail import outbox
from authgate_cli.local.demo_app.outbox_page import outbox_page


def test_a_mail_shows_its_sender_recipient_and_subject_first(tmp_path: Path) -> None:
    path = str(tmp_path / "outbox.jsonl")
    outbox.append(path, "mail", to="bob@demo.example", subject="Approve a request", text="Open http://x/a?t=1 now",
                  sender="authgate <no-reply@localhost>")
    outbox.append(path, "webhook", url="http://127.0.0.1:9/hook", body={"a": 1})
    status, _headers, body = outbox_page("http://127.0.0.1:3000", path)
    items = body.decode().split('<ul class="outbox">', 1)[1].split("</ul>", 1)[0].split("</li>")
    assert status == 200
    assert "<strong>webhook</strong>" in items[0] and "<code>url</code>: http://127.0.0.1:9/hook" in items[0]
    assert "<br>From: authgate &lt;no-reply@localhost&gt;<br>To: bob@demo.example<br>Subject: Approve a request</p>" \
        in items[1]
    assert '<pre>Open <a href="http://x/a?t=1">http://x/a?t=1</a> now</pre>' in items[1]
