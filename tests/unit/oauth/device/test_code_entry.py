"""oauth.device.code_entry: the verification page's attempt limits (RFC 8628 5.1), per host and per network."""

from __future__ import annotations

import pytest

from authgate.clock import ManualClock
from authgate.errors import ApiError
from authgate.oauth.device.code_entry import PER_ADDRESS, PER_NETWORK, within_limits


def assert_refused(source_ip: str) -> None:
    with pytest.raises(ApiError) as refused:
        within_limits(source_ip)
    error = refused.value
    retry = error.headers["Retry-After"]
    assert (error.code, error.status, error.headers) == ("rate_limited", 429, {"Retry-After": retry})
    assert error.detail == f"Too many codes were tried; retry after {retry} seconds."
    assert 0 < int(retry) <= 300


@pytest.mark.slow
def test_a_network_has_a_quota_of_its_own_beyond_its_hosts(aws: None, clock: ManualClock) -> None:
    for n in range(PER_NETWORK):
        within_limits(f"198.51.100.{n // 25}")  # four hosts, 25 tries each: none at its own quota

    assert_refused("198.51.100.200")  # a fifth host of the same /24
    within_limits("198.51.101.1")  # the next /24 is another network


def test_an_ipv6_host_is_its_64(aws: None, clock: ManualClock) -> None:
    for n in range(PER_ADDRESS):
        within_limits(f"2001:db8:7:1::{n + 1:x}")  # one /64, a new address each time

    assert_refused("2001:db8:7:1:ffff::1")
    within_limits("2001:db8:7:2::1")  # another /64 of the same /48


@pytest.mark.slow
def test_a_hundred_addresses_at_their_quota_leave_the_page_open_to_everyone_else(
        aws: None, clock: ManualClock) -> None:
    """A deployment-wide quota of 3000 tries per 5 minutes was spent by 100 addresses, and refused everyone."""
    for host in range(100):
        for _ in range(PER_ADDRESS):
            within_limits(f"10.{host}.0.1")
        assert_refused(f"10.{host}.0.1")

    within_limits("192.0.2.1")
    within_limits("2001:db8::1")
