"""Which party a source address stands for: its host and its network, for budgets that one party must not outspend.

    host, network = parties("198.51.100.7")      # ("198.51.100.7", "198.51.100.0/24")
    host, network = parties("2001:db8:1:2::7")   # ("2001:db8:1:2::/64", "2001:db8:1::/48")

An IPv4 host is its address and its network the /24 around it. An IPv6 host is its /64 (one
subnet: a single machine is commonly given a whole /64, so counting its addresses apart would
give it 2^64 budgets) and its network the /48 (a site's usual allocation, RFC 6177). Anything
else (an empty or unparsable source, such as a console test invocation's) is one party of its
own, host and network alike.
"""

from __future__ import annotations

import ipaddress

from authgate.caches import cached

IPV4_NETWORK = 24
IPV6_HOST = 64
IPV6_NETWORK = 48


# A warm function sees the same few addresses request after request.
@cached(maxsize=4096)
def parties(source_ip: str) -> tuple[str, str]:
    """(the host, the network) `source_ip` belongs to, as text."""
    try:
        address = ipaddress.ip_address(source_ip)
    except ValueError:
        return source_ip or "unknown", source_ip or "unknown"
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if isinstance(address, ipaddress.IPv4Address):
        return str(address), str(ipaddress.ip_network(f"{address}/{IPV4_NETWORK}", strict=False))
    return (str(ipaddress.ip_network(f"{address}/{IPV6_HOST}", strict=False)),
            str(ipaddress.ip_network(f"{address}/{IPV6_NETWORK}", strict=False)))
