"""The console's sign-in (OpenID Connect Core 1.0 3.1, the code flow with PKCE): the redirect, and the callback.

A console page asked without a session sends the browser to the stack's authorization endpoint as the console's
client (client): scope openid profile, acr_values mfa, max_age the console's (settings.console_max_age), a fresh
state, nonce and PKCE verifier (RFC 7636, S256). Those three and the page asked for are sealed (AES-GCM under a key of
their own, authgate.sealing) into the short-lived cookie `authgate_console_sign_in` (HttpOnly, SameSite=Lax: the
answer comes back by a top-level redirect; 10 minutes). GET /console/callback then checks, in order: the cookie (this
browser started a sign-in), `state` (constant time), `iss` when sent (RFC 9207), the endpoint's error, the code's
exchange at the token endpoint over HTTP (token_request), the ID token (id_token: iss, aud, nonce, acr mfa, auth_time
within max_age), the username from UserInfo (its `sub` the ID token's), and the person: a user of the operators
tenant still the same (user_id), not disabled. The session (operators.console_session) is created server-side, ends
at auth_time + max_age, and the browser goes back to the page it asked for.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import Any
from urllib.parse import urlencode

from authgate import base64url, clock, sealing
from authgate.assurance import MFA
from authgate.console import id_token, session, token_request
from authgate.console.client import CALLBACK, CLIENT_ID, SCOPES
from authgate.errors import ApiError
from authgate.http.cookies import cookie_values, set_cookie
from authgate.http.request import Request
from authgate.http.response import NO_STORE, Response
from authgate.issuer import base_url
from authgate.logs import get_logger
from authgate.settings import get_settings
from authgate.stores.console_sessions import ConsoleSessionStore
from authgate.stores.operators import OperatorStore
from authgate.stores.sealing_key import sealing_key

PENDING_COOKIE = "authgate_console_sign_in"
PENDING_TTL = 600
_LABEL = b"authgate console sign-in"
_OWNER = ("console-sign-in",)
AGAIN = " Open the console again to sign in."


def start(request: Request, back: str) -> Response:
    """The redirect to the authorization endpoint, the sign-in's secrets sealed in this browser's cookie."""
    issuer = base_url(request)
    verifier = secrets.token_urlsafe(48)
    pending = {"state": secrets.token_urlsafe(24), "nonce": secrets.token_urlsafe(24), "verifier": verifier,
               "back": back, "exp": clock.seconds() + PENDING_TTL}
    challenge = base64url.encode(hashlib.sha256(verifier.encode("ascii")).digest())
    query = urlencode({
        "response_type": "code", "client_id": CLIENT_ID, "redirect_uri": issuer + CALLBACK, "scope": " ".join(SCOPES),
        "state": pending["state"], "nonce": pending["nonce"], "code_challenge": challenge,
        "code_challenge_method": "S256", "acr_values": MFA, "max_age": str(get_settings().console_max_age)})
    response = Response(302, "", {"Location": f"{issuer}/oauth/authorize?{query}", **NO_STORE,
                                  "Referrer-Policy": "no-referrer"})
    sealed = sealing.seal(_key(), json.dumps(pending, separators=(",", ":")), _OWNER)
    response.multi_headers["Set-Cookie"] = [set_cookie(PENDING_COOKIE, sealed, issuer, same_site="Lax",
                                                       max_age=PENDING_TTL)]
    return response


def callback(request: Request) -> Response:
    """The authorization response (RFC 6749 4.1.2): every check above, then the session and the page asked for."""
    issuer = base_url(request)
    pending = _pending(request)
    answer = {name: values[0] for name, values in request.query.items() if len(values) == 1}
    if pending is None:
        raise _failed(request, "This browser started no sign-in to the console, or started it more than 10 minutes "
                               "ago.", "no pending sign-in")
    if not hmac.compare_digest(answer.get("state", "").encode(), str(pending["state"]).encode()):
        raise _failed(request, "The answer is not for the sign-in this browser started.", "state mismatch")
    if answer.get("iss", issuer) != issuer:
        raise _failed(request, "The answer comes from another issuer.", "iss mismatch (RFC 9207)")
    if "error" in answer or not answer.get("code"):
        raise _failed(request, "The sign-in did not complete.", f"error {answer.get('error', 'no code')[:60]}")
    settings = get_settings()
    try:
        tokens = token_request.exchange(issuer, answer["code"], str(pending["verifier"]))
        claims = id_token.validated(tokens.id_token, issuer=issuer, client_id=CLIENT_ID, nonce=str(pending["nonce"]),
                                    max_age=settings.console_max_age, now=clock.seconds())
        username = _username(token_request.userinfo(issuer, tokens.access_token), claims["sub"])
    except id_token.SignInRefused as exc:
        raise _failed(request, "The sign-in's answer did not hold.", str(exc)) from None
    except token_request.Unreachable as exc:
        raise ApiError("service_unavailable", "The stack's own token endpoint did not answer: try again.",
                       internal=str(exc)) from None
    operator = OperatorStore().get(settings.operators_tenant, username)
    if operator is None or operator.user.user_id != claims["sub"] or operator.user.disabled:
        raise _failed(request, "The person who signed in is no operator here.", f"no operator {username[:64]!r}")
    auth_time = int(claims["auth_time"])
    secret, started = ConsoleSessionStore().create(
        tenant_id=settings.operators_tenant, username=username, user_id=claims["sub"],
        generation=operator.user.session_generation, auth_time=auth_time,
        expires_at=auth_time + settings.console_max_age, sid=str(claims.get("sid", "")), id_token=tokens.id_token)
    get_logger().info("console sign-in", extra={"operator": username, "roles": operator.described()})
    response = Response(302, "", {"Location": issuer + _back(pending), **NO_STORE, "Referrer-Policy": "no-referrer"})
    response.multi_headers["Set-Cookie"] = [_cleared(request), session.cookie(request, username, secret, started)]
    return response


def _username(info: dict[str, Any], sub: str) -> str:
    """UserInfo's preferred_username, when its sub is the ID token's (OpenID Connect Core 5.3.2)."""
    username = info.get("preferred_username")
    if info.get("sub") != sub or not isinstance(username, str) or not username:
        raise id_token.SignInRefused("UserInfo's sub or preferred_username does not hold")
    return username


def _back(pending: dict[str, Any]) -> str:
    """The console page the sign-in began at (one of ours: a path under /console), else the home page."""
    back = str(pending.get("back", ""))
    if (back == "/console" or back.startswith(("/console/", "/console?"))) and "//" not in back and "\\" not in back:
        return back
    return "/console"


def _key() -> bytes:
    return sealing.derive(sealing_key(), _LABEL)


def _pending(request: Request) -> dict[str, Any] | None:
    """The sign-in this browser started, while its cookie opens and is not expired."""
    for value in cookie_values(request, PENDING_COOKIE):
        try:
            pending = json.loads(sealing.unseal(_key(), value, _OWNER))
        except ValueError:
            continue
        if isinstance(pending, dict) and int(pending.get("exp", 0)) > clock.seconds():
            return pending
    return None


def _cleared(request: Request) -> str:
    return set_cookie(PENDING_COOKIE, "", base_url(request), same_site="Lax", max_age=0)


def _failed(request: Request, what: str, internal: str) -> ApiError:
    """The sign-in's failure page (the pending sign-in forgotten: one answer only)."""
    return ApiError("console_sign_in_failed", what + AGAIN, internal=internal,
                    headers={"Set-Cookie": _cleared(request)})
