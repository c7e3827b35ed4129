"""The browser's sign-in session (single sign-on, docs/oidc.md): which one this request carries, whether it still
stands and is enough for a hand-off, opening one, and what it established.

A sign-in is a sequence of steps, each raising what the session states: a password opens it at acr
"password", amr ["pwd"] (or at "mfa" with a code typed beside it); a second factor raises it
(interaction.second_factor: SessionStore.raised, a new secret, no session fixation); a passkey alone opens it
at "mfa" (interaction.passkey_sign_in). A session stands while the user is still there, enabled and not signed
out everywhere since (users.model.User.admits). OpenID Connect Core 3.1.2.1: a session is not enough for a
request that says prompt=login, whose max_age is older than its sign-in, or whose id_token_hint names someone
else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate import clock
from authgate.audit import person
from authgate.interaction import session_cookie
from authgate.interaction.handoff import Authentication
from authgate.issuer import base_url
from authgate.stores.sessions import SessionStore
from authgate.stores.users import UserStore

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.interaction.handoff import HandOff
    from authgate.sessions.model import Session
    from authgate.users.model import User


def current_session(request: Request, tenant_id: str) -> Session | None:
    """The browser's valid session for `tenant_id` (a client's tenant), or None: none for a client with no tenant."""
    secret = session_cookie.secret_from(request)
    if secret is None or not tenant_id:
        return None
    session = SessionStore().live(secret)
    if session is None or session.tenant_id != tenant_id:
        return None
    return session if still_stands(session, UserStore().get(session.tenant_id, session.username)) else None


def live_session(request: Request) -> Session | None:
    """The browser's live session whatever its tenant (a self-registered client's step has no tenant to ask)."""
    secret = session_cookie.secret_from(request)
    return SessionStore().live(secret) if secret is not None else None


def still_stands(session: Session, user: User | None) -> bool:
    """The session's user is still there (not deleted, the username not someone else's now), not disabled,
    and not signed out everywhere since the session began."""
    if user is None:
        return False
    return user.admits(session.user_id, session.generation, session.auth_time)


def needs_sign_in(handoff: HandOff, session: Session | None) -> bool:
    """No session, prompt=login, an id_token_hint naming someone else than the session's person, or a
    max_age the sign-in is older than (OIDC Core 3.1.2.1)."""
    if session is None or "login" in handoff.prompt.split():
        return True
    if handoff.hinted_sub is not None and handoff.hinted_sub != session.user_id:
        return True
    return handoff.max_age is not None and clock.seconds() - session.auth_time > handoff.max_age


def opened(request: Request, signed: Authentication) -> Authentication:
    """`signed` with the sign-in session it opens (at its acr, amr and auth_time, with the upstream identity
    provider's sign-in when one proved the person) and that session's cookie."""
    secret, session = SessionStore().create(tenant_id=signed.tenant_id, user_id=signed.user_id,
                                            username=signed.username, acr=signed.acr, amr=signed.amr,
                                            generation=signed.generation, auth_time=signed.auth_time,
                                            upstream=signed.upstream)
    person.acted("session.started", signed.tenant_id, signed.user_id, signed.username, sid=session.sid)
    return authentication_of(session, session_cookie.set_cookie(secret, base_url(request)))._replace(notes=signed.notes)


def authentication_of(session: Session, cookie: str | None = None) -> Authentication:
    """What the session's sign-in established, to resume a flow with (`cookie`: its new secret's Set-Cookie)."""
    return Authentication(tenant_id=session.tenant_id, user_id=session.user_id, username=session.username,
                          acr=session.acr, amr=session.amr, auth_time=session.auth_time,
                          generation=session.generation, session=session, cookie=cookie)
