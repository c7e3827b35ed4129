"""Ending sign-in sessions, as sign-out does: the person's own (RP-Initiated Logout) or those an upstream IdP ended.

Each session's item is deleted; the grants made in it without offline_access are revoked with it
(OpenID Connect Core 11: their access tokens and refresh families); and each of its clients that
registered a backchannel_logout_uri is told, later, by a logout token on the deliveries queue
(Back-Channel Logout 1.0 2.5: deliveries.backchannel_logout).
"""

from __future__ import annotations

from collections.abc import Sequence

from authgate import clock
from authgate.audit import person
from authgate.deliveries import backchannel_logout
from authgate.grants.revoke import revoke_grant
from authgate.sessions.model import Session
from authgate.stores.sessions import SessionStore


def end(sessions: Sequence[Session], issuer: str, reason: str, *, client_id: str = "", idp: str = "") -> None:
    """End `sessions` now (`reason` for the grants' revocation log: "signed out", "upstream signed out").

    Each end is recorded (session.ended, and token.revoked for each grant: docs/audit.md), which is what tells
    Shared Signals receivers (CAEP session-revoked): `client_id` the application the sign-out came from, `idp`
    the upstream identity provider whose back-channel logout ended them."""
    if not sessions:
        return
    store, now = SessionStore(), clock.seconds()
    for session in sessions:
        store.end(session.session_hash)
        for grant_id in session.grants:
            revoke_grant(grant_id, now, reason, code="signed_out", tenant=session.tenant_id, client_id=client_id)
        person.acted("session.ended", session.tenant_id, session.user_id, session.username, sid=session.sid,
                     client_id=client_id, idp=idp)
    backchannel_logout.announce(sessions, issuer)
