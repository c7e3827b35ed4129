"""GET and POST /oauth/userinfo: the UserInfo endpoint (OpenID Connect Core 5.3).

The access token comes in the Authorization header (Bearer or DPoP-bound, RFC 6750 2.1, RFC 9449
7.1) or, on POST, in the form body (RFC 6750 2.2). It must carry the scope `openid`; its
audience may be any resource of this issuer: OpenID Connect defines no `aud` for access tokens,
and the token a client gets from an openid authorization is for the resource it asked for
(RFC 8707: one audience per token), while `openid` is what the person granted it for the
UserInfo endpoint, which the issuer itself serves. So the endpoint accepts a token it signed,
for any of its resources, that carries openid: every other check of the bearer guard holds
(signature, issuer, expiry, revocation, the client still registered, the DPoP proof).

Claims by scope (5.4): sub always (the user's user_id, as in the ID token and the access token);
profile: name, preferred_username (the username), updated_at; email: email, email_verified. The
user is read in the guard's one BatchGetItem (no second DynamoDB call), by the token's `username`
(or its `sub`, for a token issued when `sub` was the username). A user deleted, disabled, whose
sessions were ended after the token was issued (sessions_valid_after), or another person under the
same username now (another user_id than the token's `sub`; created after the token, for a token
of before), is invalid_token: the token no longer speaks for anyone here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from authgate.http.response import NO_STORE, Response
from authgate.stores.users import UserStore
from authgate.tokens.bearer import invalid_token
from authgate.tokens.guard import require_bearer_with

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.stores.batch import BatchRead, Pending
    from authgate.tokens.principal import Principal
    from authgate.users.model import User


def get_userinfo(request: Request) -> Response:
    """OIDC Core 5.3.1-5.3.2: the signed-in user's claims, as JSON, never cached."""
    principal, pending = require_bearer_with(request, "openid", _user_read, any_audience=True, form_body=True)
    user = UserStore.found(pending)
    if user is None or user.disabled or user.created_at > principal.issued_at \
            or user.sessions_valid_after > principal.issued_at or not user.user_id \
            or (principal.username and user.user_id != principal.subject):
        raise invalid_token("The access token no longer speaks for a user of this server.",
                            internal=f"tenant={principal.tenant}")
    return Response.json(200, claims(user, principal.scopes), headers=NO_STORE)


def _user_read(principal: Principal, reads: BatchRead) -> Pending | None:
    # A user's token names its tenant and username (client_credentials tokens carry no openid and never get here).
    return UserStore().prefetch(reads, principal.tenant, principal.username_of_person)


def claims(user: User, scopes: frozenset[str]) -> dict[str, Any]:
    """The user's claims the granted scopes release (OIDC Core 5.4; 5.1 for each claim)."""
    out: dict[str, Any] = {"sub": user.user_id}
    if "profile" in scopes:
        if user.name:
            out["name"] = user.name
        out["preferred_username"] = user.username
        if user.updated_at:
            out["updated_at"] = user.updated_at
    if "email" in scopes and user.email:
        out["email"] = user.email
        out["email_verified"] = user.email_verified
    return out
