"""POST /oauth/introspect (RFC 7662): client-authenticated token introspection.

Anything not currently valid — unknown, malformed, expired, revoked, rotated, or not the
caller's to see — is `{"active": false}` and nothing more (§2.2). Who may see what (§4):
- a client sees its own tokens (access tokens for any resource, and refresh tokens);
- a resource server, authenticating with the introspection credentials its registration made
  (stores.resources), sees every access token whose `aud` is its resource, whichever client it
  was issued to, and nothing else: no refresh token, no token of another resource.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from authgate import clock
from authgate.errors import ApiError
from authgate.http.response import NO_STORE, Response
from authgate.issuer import base_url
from authgate.oauth.token import client_auth
from authgate.oauth.token.form import read_form
from authgate.oauth.token.grants.approval import user_id_of
from authgate.stores.refresh_tokens import RefreshTokenStore
from authgate.stores.resource_cache import introspected_by
from authgate.tokens.guard import active_access_token
from authgate.tokens.jws import segment_json

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.http.request import Request

INACTIVE: dict[str, Any] = {"active": False}


def _claims(token: str) -> dict[str, Any]:
    """The payload of a JWT whose signature has already been verified (tokens.guard)."""
    claims = segment_json(token.split(".")[1])
    assert claims is not None  # verified tokens have an object payload
    return claims


def _access(token: str, client: Client, issuer: str, serves: str | None) -> dict[str, Any] | None:
    # Verified for `serves`: a resource server's credentials see only its own resource's tokens.
    principal = active_access_token(token, issuer=issuer, audience=serves)
    if principal is None or (serves is None and principal.client_id != client.client_id):
        return None
    claims = _claims(token)
    body = {
        "active": True, "scope": claims["scope"], "client_id": claims["client_id"], "sub": claims["sub"],
        "exp": claims["exp"], "iat": claims["iat"], "iss": claims["iss"], "aud": claims["aud"],
        "token_type": "Bearer", "jti": claims["jti"],
    }
    if "username" in claims:
        # RFC 7662 2.2: the person's username, for display (`sub` is their user_id).
        body["username"] = claims["username"]
    if "cnf" in claims:
        # RFC 9449 6.2: a DPoP-bound token's key thumbprint, so the resource server can check the proof.
        body["cnf"], body["token_type"] = claims["cnf"], "DPoP"
    if "act" in claims:
        # RFC 8693 2.2 (introspection), 4.1: who acts for the subject of an exchanged token.
        body["act"] = claims["act"]
    if "authorization_details" in claims:
        # RFC 9396 9.2: what the token allows in detail.
        body["authorization_details"] = claims["authorization_details"]
    return body


def _refresh(token: str, client: Client, issuer: str, now: int) -> dict[str, Any] | None:
    if "." in token:
        return None
    store = RefreshTokenStore()
    record = store.get(token)
    if (record is None or record.client_id != client.client_id or record.state != "active"
            or record.expires_at <= now or not store.family_active(record.family_id)):
        return None
    try:
        # The person as the family's access tokens name them: their user_id, and the username (RFC 7662 2.2).
        user_id = user_id_of(record.tenant_id, record.subject, record.authentication)
    except ApiError:  # a family of before sign-ins were recorded, whose user is gone: it refreshes no more
        return None
    body = {
        "active": True, "scope": record.scope, "client_id": record.client_id, "sub": user_id, "username": record.subject,
        "exp": record.expires_at, "iat": record.issued_at, "iss": issuer, "token_type": "refresh_token",
    }
    if record.authorization_details:
        # RFC 9396 9.2: the grant's authorization_details.
        body["authorization_details"] = json.loads(record.authorization_details)
    return body


def post_introspect(request: Request) -> Response:
    form = read_form(request)
    client = client_auth.authenticate(request, form)
    token = form.get("token")
    if token is None:
        raise ApiError("invalid_request", "The token parameter is required (RFC 7662 2.1).")
    issuer, now = base_url(request), clock.seconds()
    serves = introspected_by(client.client_id)
    if serves is not None:
        body = _access(token, client, issuer, serves)
    elif form.get("token_type_hint") == "refresh_token":
        body = _refresh(token, client, issuer, now) or _access(token, client, issuer, None)
    else:
        body = _access(token, client, issuer, None) or _refresh(token, client, issuer, now)
    return Response.json(200, body or INACTIVE, headers=NO_STORE)
