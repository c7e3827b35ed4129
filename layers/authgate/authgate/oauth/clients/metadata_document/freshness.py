"""How long a fetched metadata document stays fresh (draft-ietf-oauth-client-id-metadata-document-02 5.2, RFC 9111 4.2.1).

Cache-Control max-age first, then Expires against the response's Date (or now); clamped
between the deployment's lower and upper bounds (5.2 allows both). no-store and no-cache ask for
no reuse, but a code flow spans two requests at least: they get the lower bound. Only a valid
document is ever cached (5.2: never errors, never invalid documents).
"""

from __future__ import annotations

import re
from email.utils import parsedate_to_datetime

_MAX_AGE = re.compile(r"(?:^|,)\s*max-age\s*=\s*\"?(\d{1,10})\"?\s*(?:,|$)", re.IGNORECASE)
_NO_REUSE = re.compile(r"(?:^|,)\s*(no-store|no-cache)\s*(?:[,=]|$)", re.IGNORECASE)


def _http_date(value: str) -> float | None:
    if not value:
        return None

    try:
        return parsedate_to_datetime(value).timestamp() if value else None
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def lifetime(cache_control: str, expires: str, date: str, now: float, low: int, high: int) -> int:
    """Seconds to reuse the document, within [low, high]."""
    seconds: float | None = None
    if _NO_REUSE.search(cache_control):
        seconds = 0
    elif (match := _MAX_AGE.search(cache_control)) is not None:
        seconds = int(match.group(1))
    elif (until := _http_date(expires)) is not None:
        seconds = until - (_http_date(date) or now)
    if seconds is None:
        seconds = low
    return int(max(low, min(high, seconds)))
