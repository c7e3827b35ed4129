"""The seed clients the demo app plays: local authorization-code clients on its origin, and the CIBA agent."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

# The CIBA grant (OpenID Connect CIBA Core 1.0 10.1).
CIBA = "urn:openid:params:grant-type:ciba"


@dataclass(frozen=True)
class DemoClient:
    client_id: str
    name: str
    secret: str | None
    redirect_uri: str
    scopes: tuple[str, ...]
    grant_types: tuple[str, ...]

    @property
    def path(self) -> str:
        return urlsplit(self.redirect_uri).path or "/"

    @property
    def is_public(self) -> bool:
        return self.secret is None


def demo_clients(seed_clients: list[Mapping[str, Any]], origin: str,
                 tenants: list[Mapping[str, Any]] | None = None) -> list[DemoClient]:
    """The seed's local authorization-code clients whose first redirect URI is under `origin`, each with the
    scopes it is registered with that its tenant (in `tenants`) does not forbid."""
    forbidden = {str(t.get("tenant_id")): set(t.get("forbidden_scopes") or ()) for t in tenants or ()}
    out = []
    for raw in seed_clients:
        uris = [u for u in raw.get("redirect_uris") or [] if isinstance(u, str) and u.startswith(origin + "/")]
        if (not uris or raw.get("environment", "local") != "local"
                or "authorization_code" not in (raw.get("grant_types") or [])):
            continue
        if raw.get("client_type") == "confidential" and not raw.get("secret"):
            # demo-fapi (private_key_jwt, PAR, DPoP) is driven by a client library: docs/fapi2.md.
            continue
        out.append(DemoClient(client_id=str(raw["client_id"]), name=str(raw.get("name") or raw["client_id"]),
                              secret=raw.get("secret"), redirect_uri=uris[0],
                              scopes=tuple(s for s in raw.get("scopes") or ()
                                           if s not in forbidden.get(str(raw.get("tenant_id")), set())),
                              grant_types=tuple(raw.get("grant_types") or ())))
    return out


def demo_agent(seed_clients: list[Mapping[str, Any]]) -> DemoClient | None:
    """The seed's local confidential client allowed the CIBA grant (OpenID Connect CIBA Core 1.0 4), if any."""
    for raw in seed_clients:
        if (raw.get("environment", "local") == "local" and raw.get("secret")
                and CIBA in (raw.get("grant_types") or [])):
            return DemoClient(client_id=str(raw["client_id"]), name=str(raw.get("name") or raw["client_id"]),
                              secret=str(raw["secret"]), redirect_uri="", scopes=tuple(raw.get("scopes") or ()),
                              grant_types=tuple(raw.get("grant_types") or ()))
    return None
