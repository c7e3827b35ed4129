"""The console's own client registration: one confidential client of the operators tenant, ensured by each deploy.

Its secret is never stored anywhere: it is HMAC-SHA256 of the stack's sealing key under its own label, so the
console function derives it whenever it authenticates at the token endpoint, and the client record holds its SHA-256
as any client's does (clients.model). Rotating the sealing key changes it; the next deploy (or `authgate serve`)
writes the record again. The registration follows the issuer (its redirect URI and post-logout redirect URI are the
console's own pages), so the deploy's custom resource is given the stage's issuer (template ConsoleClientBootstrap).
The client id `authgate-console` is reserved: a deploy replaces whatever record holds it.
"""

from __future__ import annotations

import hashlib
import hmac

from authgate import base64url, clock
from authgate.clients.model import CONSOLE_CLIENT_ID, Client, client_of, hash_secret
from authgate.settings import get_settings
from authgate.stores.clients import ClientStore
from authgate.stores.sealing_key import sealing_key

CLIENT_ID = CONSOLE_CLIENT_ID
NAME = "authgate console"
# OpenID Connect Core 5.4: profile releases the username (UserInfo's preferred_username), the person's key here.
SCOPES = ("openid", "profile")
CALLBACK = "/console/callback"
SIGNED_OUT = "/console/signed-out"


def client_secret() -> str:
    """The console client's secret: derived from the stack's sealing key, the same in every function of the stack."""
    return base64url.encode(hmac.new(sealing_key(), b"console-client-secret", hashlib.sha256).digest())


def registration(issuer: str, created_at: int) -> Client:
    """The console's client record for the stack whose issuer is `issuer`."""
    settings = get_settings()
    return client_of({
        "client_id": CLIENT_ID, "name": NAME, "tenant_id": settings.operators_tenant, "environment": settings.stage,
        "client_type": "confidential", "token_endpoint_auth_method": "client_secret_basic",
        "secret_hash": hash_secret(client_secret()), "redirect_uris": [issuer + CALLBACK],
        "post_logout_redirect_uris": [issuer + SIGNED_OUT], "grant_types": ["authorization_code"], "scopes": SCOPES,
        "created_at": created_at})


def ensure(issuer: str) -> bool:
    """Write the console's client record unless it is already the one `issuer` needs; whether it was written."""
    store = ClientStore()
    current = store.get(CLIENT_ID, any_environment=True)
    wanted = registration(issuer.rstrip("/"), current.created_at if current is not None else clock.seconds())
    if current == wanted:
        return False
    store.put(wanted)
    return True


def retire() -> None:
    """Remove the console's client record (the stack is deleted: nothing may sign in to it any more)."""
    from authgate.clients.errors import ClientNotFound

    store = ClientStore()
    current = store.get(CLIENT_ID, any_environment=True)
    if current is not None:
        try:
            store.delete(current)
        except ClientNotFound:
            pass  # gone meanwhile
