"""Which resolved addresses a metadata fetch may connect to (draft-ietf-oauth-client-id-metadata-document-02 8.6).

Only globally routable unicast addresses. Refused: every block of IANA's IPv4 and IPv6
Special-Purpose Address Registries (RFC 6890 and the RFCs that added to them since), multicast,
the deprecated IPv6 site-local block, any IPv6 address outside global unicast 2000::/3 (RFC 4291
2.4: the rest is reserved by the IETF), an IPv4 address hidden in an IPv6 one (IPv4-mapped, NAT64
64:ff9b::/96 and 64:ff9b:1::/48, 6to4, Teredo) when that IPv4 address is refused, and the cloud
metadata services. The blocks are listed here rather than taken from `ipaddress`'s is_private /
is_global, whose answers changed between Python patch releases (3.12.4, 3.13): a Lambda runtime
update must not move this line. The loopback exception of 8.6 (a development server fetching
from its own loopback interface) exists only when the local stack asks for it.
"""

from __future__ import annotations

import ipaddress

from authgate.caches import cached

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Instance metadata services: link-local, ULA or CGNAT already, named so a reader sees them refused.
METADATA_SERVICES = frozenset({ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254"),
                               ipaddress.ip_address("169.254.170.2"), ipaddress.ip_address("100.100.100.200")})
# IANA IPv4 Special-Purpose Address Registry, every block (anycast services that are globally
# reachable too: no client publishes its metadata there), and multicast (RFC 5771).
IPV4_SPECIAL = (
    ("0.0.0.0/8", "this network"),                          # RFC 791 3.2
    ("10.0.0.0/8", "private"),                              # RFC 1918
    ("100.64.0.0/10", "shared address space (CGNAT)"),      # RFC 6598
    ("127.0.0.0/8", "loopback"),                            # RFC 1122 3.2.1.3
    ("169.254.0.0/16", "link-local"),                       # RFC 3927
    ("172.16.0.0/12", "private"),                           # RFC 1918
    ("192.0.0.0/24", "IETF protocol assignments"),          # RFC 6890 2.1 (DS-Lite, PCP, TURN, NAT64 discovery)
    ("192.0.2.0/24", "documentation"),                      # RFC 5737
    ("192.31.196.0/24", "AS112"),                           # RFC 7535
    ("192.52.193.0/24", "AMT"),                             # RFC 7450
    ("192.88.99.0/24", "6to4 relay anycast (deprecated)"),  # RFC 7526
    ("192.168.0.0/16", "private"),                          # RFC 1918
    ("192.175.48.0/24", "AS112 direct delegation"),         # RFC 7534
    ("198.18.0.0/15", "benchmarking"),                      # RFC 2544
    ("198.51.100.0/24", "documentation"),                   # RFC 5737
    ("203.0.113.0/24", "documentation"),                    # RFC 5737
    ("224.0.0.0/4", "multicast"),                           # RFC 5771
    ("255.255.255.255/32", "limited broadcast"),            # RFC 8190, RFC 919 (before 240/4: the precise name)
    ("240.0.0.0/4", "reserved"),                            # RFC 1112 4
)
# IANA IPv6 Special-Purpose Address Registry, every block, and the blocks of the IPv6 address
# space that are not unicast (multicast) or no longer assigned (site-local).
IPV6_SPECIAL = (
    ("::/128", "unspecified"),                              # RFC 4291 2.5.2
    ("::1/128", "loopback"),                                # RFC 4291 2.5.3
    ("::ffff:0:0/96", "IPv4-mapped"),                       # RFC 4291 2.5.5.2 (a public one passes, below)
    ("64:ff9b::/96", "IPv4/IPv6 translation"),              # RFC 6052
    ("64:ff9b:1::/48", "local-use IPv4/IPv6 translation"),  # RFC 8215
    ("100::/64", "discard-only"),                           # RFC 6666
    ("100:0:0:1::/64", "dummy prefix"),                     # RFC 9780
    ("2001::/23", "IETF protocol assignments"),             # RFC 2928 (Teredo, benchmarking, ORCHID, AMT, AS112, DRIP)
    ("2001:db8::/32", "documentation"),                     # RFC 3849
    ("2002::/16", "6to4"),                                  # RFC 3056
    ("2620:4f:8000::/48", "AS112 direct delegation"),       # RFC 7534
    ("3fff::/20", "documentation"),                         # RFC 9637
    ("5f00::/16", "SRv6 SIDs"),                             # RFC 9602
    ("fc00::/7", "unique local"),                           # RFC 4193
    ("fe80::/10", "link-local"),                            # RFC 4291 2.5.6
    ("fec0::/10", "site-local (deprecated)"),               # RFC 3879
    ("ff00::/8", "multicast"),                              # RFC 4291 2.7
)
_GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))


@cached
def _blocks() -> tuple[tuple[tuple[ipaddress.IPv4Network, str], ...], tuple[tuple[ipaddress.IPv6Network, str], ...]]:
    """The two lists as networks, built on the first fetch (not at import)."""
    return (tuple((ipaddress.IPv4Network(net), why) for net, why in IPV4_SPECIAL),
            tuple((ipaddress.IPv6Network(net), why) for net, why in IPV6_SPECIAL))


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for (RFC 4291 2.5.5.2, RFC 6052 2.2, RFC 3056, RFC 4380)."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if any(ip in net for net in _NAT64):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    # IPv4-compatible ::a.b.c.d (deprecated, RFC 4291 2.5.5.1) -- outside 2000::/3 anyway.
    return None


def refusal(address: str, *, allow_loopback: bool = False) -> str:
    """Why `address` must not be fetched from ("" when it may be)."""
    try:
        ip: IPAddress = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return "not an IP address"
    if "%" in address:
        return "a scoped (zone) address"
    if isinstance(ip, ipaddress.IPv6Address):
        inner = _embedded_ipv4(ip)
        if inner is not None:
            why = refusal(str(inner), allow_loopback=allow_loopback)
            if why or ip.ipv4_mapped is None:
                # Only the plain mapped form of a public address is let through (it is that address);
                # NAT64, 6to4 and Teredo reach it through a translator we do not control.
                return why or "an IPv4 address embedded in IPv6 through a translator"
            return ""
    if ip in METADATA_SERVICES:
        return "a cloud metadata service"
    if allow_loopback and any(ip in net for net in _LOOPBACK):
        return ""
    v4, v6 = _blocks()
    blocks: tuple[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str], ...] = (
        v4 if isinstance(ip, ipaddress.IPv4Address) else v6)
    why = next((why for net, why in blocks if ip in net), "")
    if why:
        return why
    if isinstance(ip, ipaddress.IPv6Address) and ip not in _GLOBAL_UNICAST:
        return "reserved (outside global unicast 2000::/3)"
    if not ip.is_global:
        return "special-use"  # whatever this Python's ipaddress knows beyond the lists above
    return ""
