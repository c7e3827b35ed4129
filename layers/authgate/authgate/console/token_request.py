"""The console's calls to its own stack, over HTTP as any client makes them (docs/console.md, "Sign-in").

The code is exchanged at the stack's token endpoint (RFC 6749 4.1.3, PKCE RFC 7636 4.5; client_secret_basic, RFC 6749
2.3.1), and the access token it gives is spent once at the UserInfo endpoint (OpenID Connect Core 5.3) for the
operator's username (`preferred_username`), which keys their user item; nothing is kept of either but the ID token.
The console holds none of the token function's powers (codes, signing keys, refresh tokens): on a stage this is a
call to its own API. No redirect is followed; an answer is read to MAX_ANSWER bytes. A refusal (a 4xx: a code used
twice, say) is SignInRefused; no answer, or a 5xx, is Unreachable.
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from typing import Any, NamedTuple
from urllib.parse import quote, urlencode

from authgate.console.client import CALLBACK, CLIENT_ID, client_secret
from authgate.console.id_token import SignInRefused

TIMEOUT = 10
MAX_ANSWER = 64 * 1024


class Unreachable(Exception):
    """The stack's own endpoint did not answer, or answered 5xx: try again later."""


class Tokens(NamedTuple):
    id_token: str
    access_token: str


def exchange(issuer: str, code: str, verifier: str) -> Tokens:
    """The tokens of an authorization code (RFC 6749 4.1.3) for the console's redirect URI and PKCE verifier."""
    credentials = f"{quote(CLIENT_ID, safe='')}:{quote(client_secret(), safe='')}".encode("ascii")
    body = urlencode({"grant_type": "authorization_code", "code": code, "redirect_uri": issuer + CALLBACK,
                      "code_verifier": verifier}).encode("ascii")
    status, answer = _call(urllib.request.Request(f"{issuer}/oauth/token", data=body, method="POST", headers={
        "Authorization": "Basic " + base64.b64encode(credentials).decode("ascii"),
        "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}))
    tokens = answer.get("id_token"), answer.get("access_token")
    if status != 200 or not all(isinstance(t, str) and t for t in tokens):
        raise SignInRefused(f"the token endpoint answered {status} {str(answer.get('error'))[:60]}")
    return Tokens(*tokens)  # type: ignore[arg-type]  # both are non-empty strings


def userinfo(issuer: str, access_token: str) -> dict[str, Any]:
    """The UserInfo endpoint's claims for the access token (OpenID Connect Core 5.3.2)."""
    status, answer = _call(urllib.request.Request(f"{issuer}/oauth/userinfo", method="GET", headers={
        "Authorization": f"Bearer {access_token}", "Accept": "application/json"}))
    if status != 200:
        raise SignInRefused(f"the UserInfo endpoint answered {status}")
    return answer


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _call(request: urllib.request.Request) -> tuple[int, dict[str, Any]]:
    """(status, JSON object) of one request; Unreachable for no answer or a 5xx, SignInRefused for no JSON object."""
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(request, timeout=TIMEOUT) as answer:
            status, raw = answer.status, answer.read(MAX_ANSWER + 1)
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read(MAX_ANSWER + 1)
    except (urllib.error.URLError, OSError) as exc:
        raise Unreachable(f"{request.full_url}: {type(exc).__name__}") from None
    if status >= 500:
        raise Unreachable(f"{request.full_url}: {status}")
    try:
        value = json.loads(raw) if len(raw) <= MAX_ANSWER else None
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise SignInRefused(f"{request.full_url} answered {status} without a JSON object")
    return status, value
