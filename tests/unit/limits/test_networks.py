"""limits.networks: the host and the network a source address stands for."""

from __future__ import annotations

import pytest

from authgate.limits.networks import parties


@pytest.mark.parametrize(("source_ip", "host", "network"), [
    ("198.51.100.7", "198.51.100.7", "198.51.100.0/24"),
    ("198.51.100.250", "198.51.100.250", "198.51.100.0/24"),
    ("::ffff:198.51.100.7", "198.51.100.7", "198.51.100.0/24"),  # IPv4 as an IPv6 socket sees it
    ("2001:db8:1:2::7", "2001:db8:1:2::/64", "2001:db8:1::/48"),
    ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64", "2001:db8:1::/48"),
    ("2001:db8:1:ff00::1", "2001:db8:1:ff00::/64", "2001:db8:1::/48"),
    ("test-invoke-source-ip", "test-invoke-source-ip", "test-invoke-source-ip"),
    ("", "unknown", "unknown"),
])
def test_a_host_is_an_ipv4_address_or_an_ipv6_64_and_a_network_a_24_or_a_48(
        source_ip: str, host: str, network: str) -> None:
    assert parties(source_ip) == (host, network)
