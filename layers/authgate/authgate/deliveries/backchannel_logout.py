"""Who hears that sessions ended (OpenID Connect Back-Channel Logout 1.0 2.3-2.5, 2.7).

When a session ends -- the person signs out (RP-Initiated Logout), or an operator ends a user's
sessions (revoke-sessions, disable, delete, reset-password, reset-mfa) -- every client that
received a code in it (the session's `clients`) and registered a backchannel_logout_uri gets a
logout token: one message per (session, client) on the deliveries queue, with the session's
`sid` and the user's `sub` (2.4: both, so a client that asked for sid, and one that keys on sub,
can each act). The token is signed when it is sent (deliveries.deliver), with the algorithm of the
client's ID tokens (2.4: the same keys; `alg` in the message). A client that is gone,
or registered no URI, is skipped.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import Any

from authgate.clients.model import Client
from authgate.deliveries import queue
from authgate.logs import get_logger
from authgate.sessions.model import Session
from authgate.stores.clients import ClientStore

KIND = "backchannel_logout"


def messages_for(sessions: Iterable[Session], issuer: str, clients: ClientStore | None = None) -> list[dict[str, Any]]:
    """One message per client with a backchannel_logout_uri per ended session (each client read once)."""
    store = clients or ClientStore()
    seen: dict[str, Client | None] = {}
    out = []
    for session in sessions:
        for client_id in sorted(session.clients):
            if client_id not in seen:
                seen[client_id] = store.get(client_id, any_environment=True)
            client = seen[client_id]
            if client is not None and client.backchannel_logout_uri:
                out.append({"kind": KIND, "issuer": issuer, "client_id": client_id, "uri": client.backchannel_logout_uri,
                            "sub": session.user_id, "sid": session.sid, "jti": secrets.token_urlsafe(18),
                            "alg": client.id_token_alg})
    return out


def announce(sessions: Iterable[Session], issuer: str) -> int:
    """Queue the logout tokens of `sessions` (ended now); how many were queued."""
    if not issuer:
        get_logger().warning("back-channel logout skipped: no issuer")
        return 0
    return queue.send(messages_for(sessions, issuer))
