"""Which resolved addresses a metadata fetch may connect to (draft-ietf-oauth-client-id-metadata-document-02 8.6).

Only globally routable unicast addresses: never the special-use ranges of RFC 6890 (private,
loopback, link-local, multicast, reserved, unspecified, shared/CGNAT 100.64.0.0/10,
documentation, benchmarking), nor an IPv4 address hidden in an IPv6 one (IPv4-mapped, NAT64
64:ff9b::/96 and 64:ff9b:1::/48, 6to4, Teredo) when that IPv4 address is refused, nor the
cloud metadata services. The loopback exception of 8.6 (a development server fetching from
its own loopback interface) exists only when the local stack asks for it.
"""

from __future__ import annotations

import ipaddress

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Instance metadata services: link-local or ULA already, named so a reader sees them refused.
METADATA_SERVICES = frozenset({ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254"),
                               ipaddress.ip_address("169.254.170.2"), ipaddress.ip_address("100.100.100.200")})
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))


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
    # IPv4-compatible ::a.b.c.d (deprecated, RFC 4291 2.5.5.1) -- ::/96 is reserved anyway.
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
    if ip.is_loopback:
        return "loopback"
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast:
        return "multicast"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT:
        return "shared address space (CGNAT)"
    if ip.is_private:
        return "private"
    if ip.is_reserved:
        return "reserved"
    if not ip.is_global:
        return "special-use"
    return ""
