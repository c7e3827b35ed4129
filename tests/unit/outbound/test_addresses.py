"""Which addresses a metadata fetch may connect to (draft-ietf-oauth-client-id-metadata-document-02 8.6).

One case per block of IANA's IPv4 and IPv6 Special-Purpose Address Registries (as of 2025), plus
multicast, the deprecated site-local fec0::/10 and the reserved IPv6 space: its first and last
addresses are refused, with the block's name.
"""

from __future__ import annotations

import ipaddress

import pytest

from authgate.outbound.addresses import IPV4_SPECIAL, IPV6_SPECIAL, refusal

# The registries' blocks, written out independently of the module's lists (a block dropped from
# them fails here).
IANA_IPV4 = ["0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
             "192.0.0.0/24", "192.0.0.0/29", "192.0.0.8/32", "192.0.0.9/32", "192.0.0.10/32", "192.0.0.170/32",
             "192.0.0.171/32", "192.0.2.0/24", "192.31.196.0/24", "192.52.193.0/24", "192.88.99.0/24",
             "192.168.0.0/16", "192.175.48.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
             "240.0.0.0/4", "255.255.255.255/32"]
IANA_IPV6 = ["::1/128", "::/128", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "100:0:0:1::/64",
             "2001::/23", "2001::/32", "2001:1::1/128", "2001:1::2/128", "2001:1::3/128", "2001:2::/48",
             "2001:3::/32", "2001:4:112::/48", "2001:10::/28", "2001:20::/28", "2001:30::/28", "2001:db8::/32",
             "2002::/16", "2620:4f:8000::/48", "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10"]
OTHERS = ["224.0.0.0/4", "ff00::/8", "fec0::/10"]


def edges(block: str) -> list[str]:
    net = ipaddress.ip_network(block)
    return [str(net.network_address), str(net.broadcast_address)]


@pytest.mark.parametrize("block", IANA_IPV4 + IANA_IPV6 + OTHERS)
def test_every_special_purpose_block_is_refused(block: str) -> None:
    for address in edges(block):
        assert refusal(address), address


@pytest.mark.parametrize(("block", "why"), [*IPV4_SPECIAL, *IPV6_SPECIAL])
def test_each_listed_block_is_refused_by_its_name(block: str, why: str) -> None:
    net = ipaddress.ip_network(block)
    middle = str(net.network_address + net.num_addresses // 2)
    if why == "IPv4-mapped":  # is the IPv4 address it maps: refused or not as that is
        mapped = ipaddress.IPv6Address(middle).ipv4_mapped
        assert refusal(middle) == refusal(str(mapped)) == "", middle  # 128.0.0.0: public
    elif why in ("IPv4/IPv6 translation", "local-use IPv4/IPv6 translation", "6to4"):
        # These stand for an IPv4 address: refused for what that is, or as reached through a translator.
        assert refusal(middle), middle
    else:
        assert refusal(middle) == why, middle


def test_site_local_is_refused_whatever_this_python_says() -> None:
    """fec0::/10 is neither private nor non-global to ipaddress before 3.12.4: it was let through."""
    assert refusal("fec0::1") == "site-local (deprecated)"
    assert refusal("feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff") == "site-local (deprecated)"


@pytest.mark.parametrize("address", ["4000::1", "8000::1", "c000::1", "e000::1", "fe00::1", "::2", "1::1"])
def test_ipv6_outside_global_unicast_is_reserved(address: str) -> None:
    assert refusal(address) == "reserved (outside global unicast 2000::/3)"


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "192.0.1.1", "192.0.3.1", "198.20.0.1",
                                     "2606:4700:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8"])
def test_global_unicast_addresses_are_fetched_from(address: str) -> None:
    assert refusal(address) == ""


@pytest.mark.parametrize(("address", "why"), [
    ("169.254.169.254", "a cloud metadata service"), ("fd00:ec2::254", "a cloud metadata service"),
    ("::ffff:10.0.0.1", "private"), ("64:ff9b::a9fe:a9fe", "a cloud metadata service"),
    ("64:ff9b::808:808", "an IPv4 address embedded in IPv6 through a translator"),
    ("2002:808:808::1", "an IPv4 address embedded in IPv6 through a translator"),
    ("fe80::1%eth0", "a scoped (zone) address"), ("not-an-ip", "not an IP address"),
])
def test_metadata_services_embedded_and_scoped_addresses(address: str, why: str) -> None:
    assert refusal(address) == why


def test_the_loopback_exception_is_only_loopback() -> None:
    assert refusal("127.0.0.1", allow_loopback=True) == refusal("::1", allow_loopback=True) == ""
    assert refusal("127.0.0.1") == refusal("::1") == "loopback"
    assert refusal("10.0.0.1", allow_loopback=True) == "private"
