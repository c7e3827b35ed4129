"""Who a backchannel request names (OpenID Connect CIBA Core 1.0 7.1): login_hint or id_token_hint, within the client's tenant.

`login_hint` is a username of the tenant or an email it knows (the UsersByEmail index, compared
lower-cased). The same reads are made whether or not anyone matches, so neither the answer nor
the DynamoDB work tells whether a user exists (CIBA 13 unknown_user_id is never answered):
a hint with `@` is always looked up both ways, a hint without only as a username. No one, a
disabled user, or an email shared by several users is nobody: the request is stored but never
approvable. `id_token_hint` is an ID token this issuer signed for this client (expired or not,
OIDC Core 3.1.2.1): its `sub` is the user_id the approval must be signed in as.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from authgate.errors import ApiError
from authgate.oauth.token.id_token_hint import verified_hint
from authgate.stores.users import UserStore

if TYPE_CHECKING:
    from collections.abc import Mapping

    from authgate.clients.model import Client
    from authgate.users.model import User

# What a login_hint may be (a username or an email): longer is nobody, without a read.
MAX_HINT = 254


class Named(NamedTuple):
    """The user a hint names; empty strings when it names nobody the tenant knows."""

    user_id: str = ""
    username: str = ""
    # Where the approval link may be mailed ("" none, or not read: an id_token_hint).
    email: str = ""


def named_user(form: Mapping[str, str], client: Client, issuer: str) -> Named:
    """Exactly one hint (CIBA 7.1), resolved within the client's tenant."""
    hints = [name for name in ("login_hint", "id_token_hint", "login_hint_token") if name in form]
    if len(hints) != 1:
        raise ApiError("invalid_request", "Name the user with exactly one of login_hint and id_token_hint "
                                          "(OpenID Connect CIBA Core 7.1).")
    if hints[0] == "login_hint_token":
        raise ApiError("login_hint_token_not_supported", "login_hint_token is not supported: name the user "
                       "with login_hint or id_token_hint.", oauth_error="invalid_request")
    if hints[0] == "id_token_hint":
        return _by_id_token(form["id_token_hint"], client, issuer)
    return _by_login_hint(form["login_hint"], client.tenant_id)


def _by_login_hint(hint: str, tenant_id: str) -> Named:
    if len(hint) > MAX_HINT:
        return Named()
    users = UserStore()
    user = users.get(tenant_id, hint)
    if "@" in hint:
        matches = users.by_email(tenant_id, hint)
        if user is None and len(matches) == 1:
            user = matches[0]
    return _usable(user)


def _by_id_token(token: str, client: Client, issuer: str) -> Named:
    claims = verified_hint(token, issuer)
    if claims is None or claims.get("aud") != client.client_id:
        raise ApiError("invalid_request", "The id_token_hint is not an ID token this server issued to this client "
                                          "(OpenID Connect CIBA Core 7.1).")
    return Named(user_id=str(claims["sub"]))


def _usable(user: User | None) -> Named:
    if user is None or user.disabled or not user.user_id:
        return Named()
    return Named(user.user_id, user.username, user.email)
