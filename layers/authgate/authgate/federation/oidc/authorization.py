"""The authorization request to an upstream OpenID Provider (OpenID Connect Core 1.0 3.1.2.1; RFC 7636).

Authorization code flow (`response_type=code`), the record's client id and scopes, authgate's
one redirect URI, `state` (RFC 6749 10.12: bound to the browser by the caller), `nonce` (Core
3.1.2.1: bound to the ID token) and a PKCE S256 challenge (RFC 7636 4.2; RFC 9700 2.1.1 asks for
PKCE even of confidential clients). What the person's own request asked of authgate is passed
on: `max_age`, `prompt=login` (sign in again), `acr_values`, `login_hint`. Apple answers with a
form POST (`response_mode=form_post`: it refuses a query response when it sends the name or
email); Google is told the Workspace domain (`hd`) when the record names exactly one.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from authgate import base64url

if TYPE_CHECKING:
    from authgate.federation.oidc.discovery import Provider
    from authgate.identity_providers.model import IdentityProvider

PROMPTS = ("login", "consent", "select_account", "none")


def s256(code_verifier: str) -> str:
    """The PKCE S256 code challenge of `code_verifier` (RFC 7636 4.2)."""
    return base64url.encode(hashlib.sha256(code_verifier.encode("ascii")).digest())


def request_url(idp: IdentityProvider, provider: Provider, *, redirect_uri: str, state: str, nonce: str,
                code_verifier: str, max_age: int | None = None, prompt: str | None = None,
                acr_values: str | None = None, login_hint: str | None = None) -> str:
    """The URL to send the browser to: the provider's authorization endpoint with the request's parameters."""
    params = {"response_type": "code", "client_id": idp.client_id, "redirect_uri": redirect_uri,
              "scope": idp.requested_scopes, "state": state, "nonce": nonce,
              "code_challenge": s256(code_verifier), "code_challenge_method": "S256"}
    if idp.preset == "apple":
        params["response_mode"] = "form_post"
    if idp.preset == "google" and len(idp.domains) == 1:
        params["hd"] = idp.domains[0]
    if max_age is not None:
        params["max_age"] = str(max_age)
    if prompt in PROMPTS:
        params["prompt"] = prompt
    if acr_values:
        params["acr_values"] = acr_values
    if login_hint:
        params["login_hint"] = login_hint
    endpoint = provider.authorization_endpoint
    # Core 3.1.2.1 / RFC 6749 3.1: the endpoint may carry a query of its own, which is kept.
    return endpoint + ("&" if "?" in endpoint else "?") + urlencode(params)
