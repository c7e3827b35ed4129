"""limits.counters: counter names (72-bit hashes, no raw client ids or addresses) and the limiter's item keys."""

from __future__ import annotations

from authgate.limits.counters import api_key, client_counter, digest, failure_key, ip_counter
from authgate.limits.partitions import Partition
from authgate.limits.window import Window


def test_counters_are_short_stable_hashes_of_their_subject() -> None:
    assert len(digest("svc")) == 12 and digest("svc") == digest("svc") != digest("svd")
    assert client_counter("svc") == "c_" + digest("svc")
    assert ip_counter("203.0.113.9") == "i_" + digest("203.0.113.9")
    assert ip_counter("") == ip_counter("unknown")
    assert "203.0.113.9" not in ip_counter("203.0.113.9")


def test_item_keys_name_the_window_and_the_partition_only_when_split() -> None:
    window = Window(start=1_750_000_020, length=60)
    assert api_key("t1", window, Partition(index=0, count=1)) == "api#t1#1750000020"
    assert api_key("t1", window, Partition(index=2, count=4)) == "api#t1#1750000020#p2of4"
    assert failure_key("client", "svc", window) == f"authfail#client#{digest('svc')}#1750000020"
