"""The sessions an upstream sign-in opened, found from what the upstream names them by (its logout messages).

An upstream back-channel logout (OpenID Connect Back-Channel Logout 1.0 2.4, 2.7) names its
session by `sid`, the person by `sub`, or both. By `sid`: the sessions whose upstream sent it, from
SessionsTable's sparse UpstreamSessions index (one Query; sessions.model.upstream_key), and, when
`sub` came too, only those of that subject. By `sub` alone: the person's linked identity
(LinkedIdentitiesTable, one GetItem) names the user, whose sessions (UserSessions, one Query)
opened by that upstream subject at that IdP are the ones; a local sign-in of the same user, or one
through another IdP, is not. An identity linked to nobody started nothing here.
"""

from __future__ import annotations

from authgate.sessions.model import Session
from authgate.stores.linked_identities import LinkedIdentityStore
from authgate.stores.sessions import SessionStore


def named(tenant_id: str, issuer: str, *, subject: str = "", session_id: str = "") -> list[Session]:
    """The tenant's sessions the upstream `issuer` opened for `subject` and/or in its session `session_id`."""
    if session_id:
        found = SessionStore().of_upstream(tenant_id, issuer, session_id)
    elif subject:
        link = LinkedIdentityStore().get(tenant_id, issuer, subject)
        found = SessionStore().of_user(tenant_id, link.user_id) if link is not None else []
    else:
        return []
    return [s for s in found if s.tenant_id == tenant_id and s.upstream is not None and s.upstream.issuer == issuer
            and (not session_id or s.upstream.sid == session_id)
            and (not subject or s.upstream.subject == subject)]
