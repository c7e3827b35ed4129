"""GET /console/events/verify?since=S: the audit trail's chain checked, as `authgate events verify --since S` checks it.

The same operation (authgate.audit_trail.query.verified): every object from the day of `since` (ISO 8601 in UTC or an
age, as the command takes it; empty: the whole chain) to the newest, and the one before, read where the Events page
reads; each object's events against the digest it sealed, its seal against the stack's own MAC key (kms:VerifyMac
on a stage; an object sealed by any other key is a `foreign` finding: the console trusts no earlier key, the command's
--trust-key does), its sequence against its name and its predecessor's digest. The page says what the command prints:
each object missing, edited, foreign, broken, rewritten or misplaced, one line each, and the verdict (`INTACT: ...`
or `NOT INTACT: ...`). A time the command refuses is the 400 page in its words; a trail AWS cannot read now, the 503
page (authgate.failures).

Verifying changes nothing: a GET, allowed by `events.view` (owner, auditor), judged before anything is read, and no
audit event of its own, as the command records none.
"""

from __future__ import annotations

import html

from authgate.console.pages import allow, page, query_value, section, url
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response

PAGE = "events/verify"


def get_verify(request: Request, signed: SignedIn) -> Response:
    from authgate.audit_trail.consumer import NoTrail
    from authgate.audit_trail.query import InvalidTime, verified

    allow(signed, "events.view")
    since = query_value(request, "since").strip()
    try:
        result = verified(since or None)
    except InvalidTime as exc:
        raise ApiError("invalid_request", f"{exc}.") from None
    except NoTrail:
        raise ApiError("not_found", "This stack keeps no audit trail to verify.") from None
    e = html.escape
    found = "\n".join(f"<li>{e(finding.line())}</li>" for finding in result.findings)
    body = (f'<p role="status">{e(result.verdict())}</p>\n'
            + (section("Findings", f'<ul class="findings">\n{found}\n</ul>') + "\n" if found else "")
            + form(request, since)
            + f'\n<p><a href="{e(url(request, "events"))}">Back to the events</a></p>')
    return page(request, signed, "Verify the audit trail", body, current="events")


def form(request: Request, since: str = "") -> str:
    """The form that verifies the chain from a day (the Events page's, and this page's to verify again)."""
    e = html.escape
    return section("Verify the chain", (
        "<p>Checks that no object of the trail is missing, edited or rewritten, as "
        "<code>authgate events verify</code> does.</p>\n"
        f'<form method="get" action="{e(url(request, PAGE))}">\n'
        '<label for="verify-since">Since (empty: the whole chain)</label>\n'
        f'<input id="verify-since" name="since" type="text" value="{e(since)}" autocomplete="off" '
        'spellcheck="false" placeholder="7d or 2026-01-31">\n'
        '<div class="actions"><button type="submit">Verify</button></div>\n</form>'))

