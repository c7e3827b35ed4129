"""Redeeming the authorization code at the provider's token endpoint (RFC 6749 4.1.3-4.1.4; OpenID Connect Core 3.1.3).

A form POST under authgate.outbound's rules (outbound.exchange), with the code, authgate's
redirect URI and the PKCE code verifier (RFC 7636 4.5). authgate authenticates as the record's
client (RFC 6749 2.3.1): client_secret_basic, its id and secret form-urlencoded before base64,
unless the provider's discovery offers only client_secret_post; Apple's secret is a JWT signed
for this request (federation.oidc.apple), sent in the form as Apple asks. A 200 with a JSON
object holding an `id_token` is the answer (Core 3.1.3.3); an error (RFC 6749 5.2) is refused
with its `error` kept for logs. The secret is unsealed only here, and never logged.
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import quote, urlencode

from authgate.federation import secrets
from authgate.federation.errors import UpstreamRefused
from authgate.federation.oidc import apple
from authgate.outbound.connection import Limits, Unreachable
from authgate.outbound.exchange import BadUrl, exchange, loopback_allowed, target
from authgate.sealing import SecretUnreadable

if TYPE_CHECKING:
    from authgate.federation.oidc.discovery import Provider
    from authgate.identity_providers.model import IdentityProvider

USER_AGENT = "authgate (OpenID Connect relying party)"
# An ID token with many groups (Entra ID sends up to 200) and an access token: tens of KB at most.
LIMITS = Limits(connect=2.0, read=3.0, total=5.0, max_bytes=64 * 1024)
MAX_LOGGED = 100


class Tokens(NamedTuple):
    """What the token endpoint answered that authgate uses."""

    id_token: str
    access_token: str


def redeem(idp: IdentityProvider, provider: Provider, *, code: str, redirect_uri: str, code_verifier: str,
           now: int) -> Tokens:
    """The provider's tokens for `code`; UpstreamRefused when it cannot be redeemed."""
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
            "code_verifier": code_verifier}
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
    secret = _client_secret(idp, now)
    if provider.client_auth == "client_secret_post" or idp.preset == "apple":
        form.update(client_id=idp.client_id, client_secret=secret)
    else:
        # RFC 6749 2.3.1: each part form-urlencoded (Appendix B) before they are joined and encoded.
        pair = f"{quote(idp.client_id, safe='')}:{quote(secret, safe='')}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(pair).decode("ascii")
    allow_loopback = loopback_allowed(provider.token_endpoint)
    try:
        response = exchange("POST", target(provider.token_endpoint, allow_loopback=allow_loopback),
                            body=urlencode(form).encode("ascii"), headers=headers, user_agent=USER_AGENT,
                            limits=LIMITS, allow_loopback=allow_loopback)
    except (BadUrl, Unreachable) as exc:
        raise UpstreamRefused("token_unavailable", f"{provider.token_endpoint}: {exc}") from None
    answer = _json(response.body)
    if response.status != 200:
        error = answer.get("error") if answer else None
        raise UpstreamRefused("token_refused", f"HTTP {response.status}, error {str(error)[:MAX_LOGGED]!r}")
    id_token, access_token = (answer or {}).get("id_token"), (answer or {}).get("access_token")
    if not isinstance(id_token, str) or not id_token:
        raise UpstreamRefused("token_invalid", "the token response has no id_token (Core 3.1.3.3)")
    return Tokens(id_token, access_token if isinstance(access_token, str) else "")


def _client_secret(idp: IdentityProvider, now: int) -> str:
    try:
        if idp.preset == "apple":
            return apple.client_secret(team_id=idp.apple_team_id, key_id=idp.apple_key_id, client_id=idp.client_id,
                                       private_key_pem=secrets.unseal(idp, "apple_private_key"), now=now)
        return secrets.unseal(idp, "client_secret")
    except (SecretUnreadable, ValueError, TypeError):
        raise UpstreamRefused("client_secret_unreadable", "the record's sealed secret does not open under this "
                                                          "stack's sealing key (set it again: authgate idps update)"
                              ) from None


def _json(body: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    return value if isinstance(value, dict) else None
