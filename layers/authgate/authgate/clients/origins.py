"""The browser origins (RFC 6454) of public clients, indexed beside the clients in ClientsTable.

Origin records: key "origin <environment> <origin>", an attribute `clients` holding the ids of
the public clients whose redirect URIs have that origin. A space never appears in a registered
client_id (authgate_cli.admin.validation), so an origin record can never be read as a client,
and ids that start with the prefix are refused.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from authgate.clients.model import Client

ORIGIN_PREFIX = "origin "
_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_record_id(environment: str, origin: str) -> str:
    return f"{ORIGIN_PREFIX}{environment} {origin}"


def origin_of(uri: str) -> str | None:
    """The ASCII serialization of a URI's origin (RFC 6454 6.2), or None for a non-web scheme."""
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None  # a native app's private-use scheme (RFC 8252 7.1) has no web origin
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}" + (f":{port}" if port is not None and port != _DEFAULT_PORTS[scheme] else "")


def browser_origins(client: Client) -> set[str]:
    """The web origins (RFC 6454) of a public client's redirect URIs: where its code runs."""
    if not client.is_public:
        return set()
    return {o for o in (origin_of(uri) for uri in client.redirect_uris) if o}
