"""Single sign-on at the authorization endpoint: the browser's session, whether it is enough, and remembered consent.

OpenID Connect Core 3.1.2.1 and 3.1.2.3: a person signed in in this browser is not asked for the
password again while the session is valid (authgate.sessions.model) and belongs to the client's
tenant, unless the request says prompt=login or its max_age is older than the sign-in. Consent
is asked only for scopes never approved for this client and resource (stores.consents), or when
the request says prompt=consent. A self-registered client (no tenant until someone signs in)
always gets the password page.

Costs at the authorization endpoint: the session is read with the client's tenant in one
BatchGetItem, then the user (still there, not disabled, not signed out everywhere since) with the
remembered consent in one more; no password hash. A silent re-authentication is then the client's
read, those two, the code's PutItem and the session's UpdateItem (`make bench`).
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from authgate.audit import person
from authgate.interaction import session_cookie
from authgate.interaction.sessions import still_stands
from authgate.stores.batch import BatchRead, Pending
from authgate.stores.consents import ConsentStore
from authgate.stores.sessions import SessionStore
from authgate.stores.user_items import passkeys_held
from authgate.stores.users import UserStore

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.http.request import Request
    from authgate.oauth.authorization.request import AuthorizationRequest
    from authgate.sessions.model import Session


def session_read(reads: BatchRead, request: Request, client: Client) -> Pending | None:
    """Register the browser's session in the request's first batch read (beside the client's tenant)."""
    secret = session_cookie.secret_from(request)
    if secret is None or not client.tenant_id:
        return None
    return SessionStore().prefetch(reads, secret)


def checked_session(pending: Pending | None, client: Client,
                    auth: AuthorizationRequest) -> tuple[Session | None, bool, bool | None, bool | None]:
    """(the valid session a `session_read` found for `client`'s tenant, or None; whether the person approved this
    request's scopes before; whether its user holds a one-time-code secret, and a passkey, None when unread or
    uncounted): the user and the remembered consent in ONE BatchGetItem."""
    session = SessionStore.found_live(pending.item if pending is not None else None)
    if session is None or session.tenant_id != client.tenant_id:
        return None, False, None, None
    reads = BatchRead(operation="single_sign_on.batch_get")
    user = UserStore().prefetch(reads, session.tenant_id, session.username)
    consent = ConsentStore().prefetch(reads, session.tenant_id, session.user_id, auth.client_id)
    reads.run()
    if not still_stands(session, UserStore.found(user)):
        return None, False, None, None
    item = user.item if user is not None else None
    return (session, ConsentStore.covers(consent.item, auth.scopes, auth.resource),
            bool((item or {}).get("totp_secret")) if user is not None else None, passkeys_held(item))


def remembered(auth: AuthorizationRequest, session: Session) -> bool:
    """Whether the session's person approved this request's scopes for its client and resource before (one
    read: after a second-factor step, when the session was not read with its consent)."""
    reads = BatchRead(operation="single_sign_on.consent")
    consent = ConsentStore().prefetch(reads, session.tenant_id, session.user_id, auth.client_id)
    reads.run()
    return ConsentStore.covers(consent.item, auth.scopes, auth.resource)


def consent_needed(auth: AuthorizationRequest, remembered: bool) -> bool:
    """prompt=consent, authorization_details (never remembered: each payment is asked, RFC 9396 2), or scopes this
    person never approved for this client and resource (`remembered`: they did)."""
    return "consent" in auth.prompt.split() or bool(auth.authorization_details) or not remembered


def approved(auth: AuthorizationRequest, session: Session, *, remembered: bool = False) -> str:
    """The person approved this request in this session: remember the scopes (unless `remembered` already),
    and the client for sign-out; the new grant's id, which ends with the session unless it asked for
    offline_access (OIDC Core 11)."""
    grant_id = str(uuid.uuid4())
    if not remembered:
        ConsentStore().remember(session.tenant_id, session.user_id, auth.client_id, auth.scopes, auth.resource)
        person.acted("consent.granted", session.tenant_id, session.user_id, session.username,
                     client_id=auth.client_id, scopes=list(auth.scopes), resource=auth.resource)
    SessionStore().used_by(session, auth.client_id, None if "offline_access" in auth.scopes else grant_id)
    return grant_id
