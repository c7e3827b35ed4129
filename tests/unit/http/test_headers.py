"""http.headers: request header fields, names case-insensitive (RFC 9110 5.1), every value kept."""

from __future__ import annotations

from authgate.http.headers import Headers


def test_names_are_case_insensitive_and_repeats_are_kept_in_order() -> None:
    headers = Headers([("Accept", "a"), ("accept", "b"), ("X-Id", "1")])
    assert (headers.get("ACCEPT"), headers.get_all("Accept"), headers.get("missing", "d")) == ("a", ["a", "b"], "d")
    assert "x-id" in headers and "X-ID" in headers and 7 not in headers
    assert list(headers) == ["accept", "x-id"]
    assert list(headers.items()) == [("accept", "a"), ("accept", "b"), ("x-id", "1")]


def test_from_an_event_multi_value_headers_win_and_none_values_are_dropped() -> None:
    both = Headers.from_event({"Accept": "single"}, {"Accept": ["m1", "m2"]})
    assert both.get_all("accept") == ["m1", "m2"]
    single = Headers.from_event({"Accept": "single", "X-None": None}, None)  # type: ignore[dict-item]
    assert (single.get_all("accept"), "x-none" in single) == (["single"], False)
    assert list(Headers.from_event(None, {"X-Empty": None}).items()) == []  # type: ignore[dict-item]
