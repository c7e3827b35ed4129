"""Single sign-on at the authorization endpoint: the browser's session, whether it is enough, and remembered consent.

OpenID Connect Core 3.1.2.1 and 3.1.2.3: a person signed in in this browser is not asked for the
password again while the session is valid (authgate.sessions.model) and belongs to the client's
tenant, unless the request says prompt=login or its max_age is older than the sign-in. Consent
is asked only for scopes never approved for this client and resource (stores.consents), or when
the request says prompt=consent. A self-registered client (no tenant until someone signs in)
always gets the password page.

Costs: reading the session is one GetItem, the user (still there, not disabled, not signed out
everywhere since) one more, the remembered consent one more; no password hash.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from authgate import clock
from authgate.oauth.authorization import session_cookie
from authgate.single_use.authentication import Authentication
from authgate.stores.consents import ConsentStore
from authgate.stores.sessions import SessionStore
from authgate.stores.users import UserStore

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.http.request import Request
    from authgate.oauth.authorization.request import AuthorizationRequest
    from authgate.sessions.model import Session


def current_session(request: Request, client: Client) -> Session | None:
    """The browser's valid session for `client`'s tenant, or None."""
    secret = session_cookie.secret_from(request.headers.get_all("cookie"))
    if secret is None or not client.tenant_id:
        return None
    session = SessionStore().live(secret)
    if session is None or session.tenant_id != client.tenant_id:
        return None
    user = UserStore().get(session.tenant_id, session.username)
    if user is None or user.user_id != session.user_id:
        return None  # deleted, or the username now belongs to someone else
    return session if session.valid_for(True, user.disabled, user.sessions_valid_after) else None


def sign_in_needed(auth: AuthorizationRequest, session: Session | None) -> bool:
    """No session, prompt=login, an id_token_hint naming someone else than the session's person, or a
    max_age the sign-in is older than (OIDC Core 3.1.2.1)."""
    if session is None or "login" in auth.prompt.split():
        return True
    if auth.hinted_sub is not None and auth.hinted_sub != session.user_id:
        return True
    return auth.max_age is not None and clock.seconds() - session.auth_time > auth.max_age


def consent_needed(auth: AuthorizationRequest, session: Session) -> bool:
    """prompt=consent, authorization_details (never remembered: each payment is asked, RFC 9396 2), or scopes this
    person never approved for this client and resource."""
    if "consent" in auth.prompt.split() or auth.authorization_details:
        return True
    return not ConsentStore().covers(session.tenant_id, session.user_id, auth.client_id, auth.scopes, auth.resource)


def authentication_of(session: Session) -> Authentication:
    """What the session's sign-in established, as a code records it for the ID token."""
    return Authentication(user_id=session.user_id, auth_time=session.auth_time, acr=session.acr, amr=session.amr,
                          sid=session.sid)


def approved(auth: AuthorizationRequest, session: Session, *, remembered: bool = False) -> str:
    """The person approved this request in this session: remember the scopes (unless `remembered` already),
    and the client for sign-out; the new grant's id, which ends with the session unless it asked for
    offline_access (OIDC Core 11)."""
    grant_id = str(uuid.uuid4())
    if not remembered:
        ConsentStore().remember(session.tenant_id, session.user_id, auth.client_id, auth.scopes, auth.resource)
    SessionStore().used_by(session, auth.client_id, None if "offline_access" in auth.scopes else grant_id)
    return grant_id
