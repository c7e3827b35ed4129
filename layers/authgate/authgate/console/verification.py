"""GET /console/events/verify?since=S&trust=K: the audit trail's chain checked, as `authgate events verify --since S
--trust-key K` checks it.

The same operation (authgate.audit_trail.query.verified): every object from the day of `since` (ISO 8601 in UTC or an
age, as the command takes it; empty: the whole chain) to the newest, and the one before, read where the Events page
reads; each object's events against the digest it sealed, its seal against the stack's own MAC key (kms:VerifyMac
on a stage; an object sealed by any other key is a `foreign` finding) and the earlier keys the operator names (`trust`:
one KMS key ARN a line, each checked as --trust-key is; the key an object names is never trusted by itself), its
sequence against its name and its predecessor's digest. The page says what the command prints:
each object missing, edited, foreign, broken, rewritten or misplaced, one line each, and the verdict (`INTACT: ...`
or `NOT INTACT: ...`). A time or a key the command refuses is the 400 page in its
words; a trail AWS cannot read now, the 503
page (authgate.failures).

Verifying changes nothing: a GET, allowed by `events.view` (owner, auditor), judged before anything is read, and no
audit event of its own, as the command records none.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from authgate.console.pages import allow, page, query_value, section, url
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response

PAGE = "events/verify"
MAX_TRUSTED = 4000  # characters of the earlier keys' field: tens of ARNs


def get_verify(request: Request, signed: SignedIn) -> Response:
    from authgate.audit_trail.consumer import NoTrail
    from authgate.audit_trail.query import InvalidTime, verified

    allow(signed, "events.view")
    since = query_value(request, "since").strip()
    trusted = _trusted(request)
    try:
        result = verified(since or None, trusted=trusted)
    except InvalidTime as exc:
        raise ApiError("invalid_request", f"{exc}.") from None
    except NoTrail:
        raise ApiError("not_found", "This stack keeps no audit trail to verify.") from None
    e = html.escape
    found = "\n".join(f"<li>{e(finding.line())}</li>" for finding in result.findings)
    body = (f'<p role="status">{e(result.verdict())}</p>\n'
            + (section("Findings", f'<ul class="findings">\n{found}\n</ul>') + "\n" if found else "")
            + form(request, since, trusted)
            + f'\n<p><a href="{e(url(request, "events"))}">Back to the events</a></p>')
    return page(request, signed, "Verify the audit trail", body, current="events")


def _trusted(request: Request) -> tuple[str, ...]:
    """The earlier keys the form names (`trust`, one a line), each a KMS key's ARN as --trust-key takes it; the 400
    page in the command's words otherwise."""
    from authgate.audit_trail.query import trusted_key
    from authgate.operators.input import InvalidInput

    given = request.query.get("trust", [])
    if len(given) > 1:
        raise ApiError("invalid_request", "The trust parameter is repeated.")
    if given and len(given[0]) > MAX_TRUSTED:
        raise ApiError("invalid_request", "The trust parameter is too long.")
    try:
        return tuple(trusted_key(line.strip()) for line in (given[0] if given else "").splitlines() if line.strip())
    except InvalidInput as exc:
        raise ApiError("invalid_request", f"{exc}.") from None


def form(request: Request, since: str = "", trusted: Sequence[str] = ()) -> str:
    """The form that verifies the chain from a day (the Events page's, and this page's to verify again), trusting the
    stack's key and the earlier keys it names."""
    e = html.escape
    return section("Verify the chain", (
        "<p>Checks that no object of the trail is missing, edited or rewritten, as "
        "<code>authgate events verify</code> does.</p>\n"
        f'<form method="get" action="{e(url(request, PAGE))}">\n'
        '<label for="verify-since">Since (empty: the whole chain)</label>\n'
        f'<input id="verify-since" name="since" type="text" value="{e(since)}" autocomplete="off" '
        'spellcheck="false" placeholder="7d or 2026-01-31">\n'
        '<label for="verify-trust">Earlier keys to trust (--trust-key)</label>\n'
        '<p class="fine" id="verify-trust-hint">one KMS key ARN a line, an earlier MAC key of this stack; empty: the '
        "stack's own key only</p>\n"
        '<textarea id="verify-trust" name="trust" rows="2" aria-describedby="verify-trust-hint" autocomplete="off" '
        f'spellcheck="false">{e(chr(10).join(trusted))}</textarea>\n'
        '<div class="actions"><button type="submit">Verify</button></div>\n</form>'))

