"""SAML time instants (Core 1.3.3): xs:dateTime in UTC, read to and written from epoch seconds."""

from __future__ import annotations

import re
from datetime import UTC, datetime

# xs:dateTime as SAML writes it: UTC ("Z", or an offset of zero), seconds with an optional fraction
# (Core 1.3.3: no reliance on a resolution finer than milliseconds; Entra ID writes seven digits).
_INSTANT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]00:00)?")


def read(value: str | None) -> int | None:
    """Epoch seconds (the fraction dropped) of a SAML instant; None when `value` is absent or not one."""
    if value is None or not _INSTANT.fullmatch(value.strip()):
        return None
    try:
        moment = datetime.fromisoformat(value.strip())  # 3.11: "Z", and any number of fraction digits
    except ValueError:
        return None
    return int((moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp())


def write(seconds: int) -> str:
    """The SAML instant of `seconds` since the epoch (`2026-01-31T12:00:00Z`)."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
