"""Who the console's request is from: the operator's session, read with their user item in one BatchGetItem.

The console's cookie `authgate_console` (HttpOnly, SameSite=Lax, `__Host-` on a stage: http.cookies) holds the
operator's username (base64url) and the session's random secret; only the secret's hash is stored
(operators.console_session). One BatchGetItem reads the session and the operator's user item, whose roles are the
ones every page judges (operators.roles): a role granted or revoked, a person disabled, deleted, or whose sessions
were ended (users.model.User.admits) counts at the next request. No token is ever in the browser.
"""

from __future__ import annotations

from typing import NamedTuple

from authgate import base64url, clock
from authgate.http.cookies import cookie_values, set_cookie
from authgate.issuer import base_url
from authgate.operators.console_session import ConsoleSession
from authgate.operators.model import Operator
from authgate.request_protocol import RequestView
from authgate.settings import get_settings
from authgate.stores.batch import BatchRead
from authgate.stores.console_sessions import ConsoleSessionStore
from authgate.stores.operators import OperatorStore

COOKIE = "authgate_console"
MAX_COOKIE = 1024


class SignedIn(NamedTuple):
    """The request's operator and the session it came with."""

    session: ConsoleSession
    operator: Operator


def signed_in(request: RequestView) -> SignedIn | None:
    """The operator whose live session the request's cookie names, while their user item still admits it."""
    named = _named(request)
    if named is None:
        return None
    username, secret = named
    tenant = get_settings().operators_tenant
    reads = BatchRead()
    session_read = ConsoleSessionStore().prefetch(reads, secret)
    operator_read = OperatorStore().prefetch(reads, tenant, username)
    if session_read is None or operator_read is None:
        return None
    reads.run()
    session, operator = ConsoleSessionStore.found_live(session_read), OperatorStore.found(operator_read)
    if session is None or operator is None or (session.tenant_id, session.username) != (tenant, username):
        return None
    if not operator.user.admits(session.user_id, session.generation, session.auth_time):
        return None
    return SignedIn(session, operator)


def _named(request: RequestView) -> tuple[str, str] | None:
    """(username, secret) of the request's console cookie, if well formed."""
    for value in cookie_values(request, COOKIE):
        encoded, dot, secret = value.partition(".")
        if not dot or len(value) > MAX_COOKIE:
            continue
        try:
            return base64url.decode(encoded).decode("utf-8"), secret
        except (ValueError, UnicodeDecodeError):
            continue
    return None


def cookie(request: RequestView, username: str, secret: str, session: ConsoleSession) -> str:
    """Set-Cookie of a new session, until the session's end."""
    value = f"{base64url.encode(username.encode('utf-8'))}.{secret}"
    return set_cookie(COOKIE, value, base_url(request), same_site="Lax",
                      max_age=max(0, session.expires_at - clock.seconds()))


def cleared(request: RequestView) -> str:
    """Set-Cookie that removes the console's cookie."""
    return set_cookie(COOKIE, "", base_url(request), same_site="Lax", max_age=0)
