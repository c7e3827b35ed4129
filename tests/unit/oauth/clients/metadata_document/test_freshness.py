"""oauth.clients.metadata_document.freshness: how long a fetched document is reused (draft 5.2, RFC 9111 4.2.1)."""

from __future__ import annotations

import pytest

from authgate.oauth.clients.metadata_document import freshness


@pytest.mark.parametrize("cache_control, expires, date, seconds", [
    ("max-age=900", "", "", 900),
    ("public, max-age=10", "", "", 300),                # below the floor
    ("max-age=999999", "", "", 86400),                  # above the ceiling
    ("no-store", "", "", 300),
    ("no-cache, max-age=900", "", "", 300),
    ("", "Thu, 01 Jan 2026 01:00:00 GMT", "Thu, 01 Jan 2026 00:00:00 GMT", 3600),
    ("", "0", "", 300),                                 # an invalid Expires is already expired
    ("", "", "", 300),                                  # no cache headers: the floor
])
def test_freshness_within_bounds(cache_control: str, expires: str, date: str, seconds: int) -> None:
    assert freshness.lifetime(cache_control, expires, date, 0, 300, 86400) == seconds


def test_max_age_wins_over_expires_and_expires_counts_from_date_or_now() -> None:
    assert freshness.lifetime("max-age=900", "Thu, 01 Jan 2026 05:00:00 GMT", "Thu, 01 Jan 2026 00:00:00 GMT",
                              0, 300, 86400) == 900
    expires_at = 1_767_229_200  # Thu, 01 Jan 2026 01:00:00 GMT
    assert freshness.lifetime("", "Thu, 01 Jan 2026 01:00:00 GMT", "", expires_at - 1200, 300, 86400) == 1200
    assert freshness.lifetime("private, max-age=\"600\"", "", "", 0, 300, 86400) == 600  # a quoted value
