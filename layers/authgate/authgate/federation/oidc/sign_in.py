"""A sign-in with an upstream OpenID Provider, from the request to the identity (OpenID Connect Core 1.0 3.1).

`start` is the URL the browser goes to; the caller keeps `state`, `nonce` and `code_verifier`
with the IdP the request went to, bound to the browser, and hands them back to `finish` with the
parameters of the response (its query, or Apple's form POST). `finish` checks the response
(federation.oidc.callback), redeems the code (token_request), validates the ID token (id_token),
asks UserInfo only when a mapped claim is missing (userinfo) and maps the claims (claims). Every
failure is an UpstreamRefused whose `reason` says which rule failed and whose `internal` says
how, for logs; no token, code or secret is in either.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from authgate import clock
from authgate.federation.oidc import (
    apple,
    authorization,
    callback,
    claims,
    discovery,
    id_token,
    token_request,
    userinfo,
)

if TYPE_CHECKING:
    from authgate.federation.upstream import UpstreamIdentity
    from authgate.identity_providers.model import IdentityProvider


def start(idp: IdentityProvider, *, redirect_uri: str, state: str, nonce: str, code_verifier: str,
          max_age: int | None = None, prompt: str | None = None, acr_values: str | None = None,
          login_hint: str | None = None) -> str:
    """The authorization request's URL at `idp`'s provider (its discovery fetched or cached)."""
    return authorization.request_url(idp, discovery.discover(idp), redirect_uri=redirect_uri, state=state,
                                     nonce=nonce, code_verifier=code_verifier, max_age=max_age, prompt=prompt,
                                     acr_values=acr_values, login_hint=login_hint)


def finish(idp: IdentityProvider, *, params: Mapping[str, str], redirect_uri: str, expected_state: str, nonce: str,
           code_verifier: str, max_age: int | None = None) -> UpstreamIdentity:
    """Who the provider says signed in, once every rule holds; UpstreamRefused otherwise."""
    provider = discovery.discover(idp)
    code = callback.code_from(params, provider=provider, expected_state=expected_state)
    now = clock.seconds()
    tokens = token_request.redeem(idp, provider, code=code, redirect_uri=redirect_uri, code_verifier=code_verifier,
                                  now=now)
    said = id_token.validate(idp, provider, tokens.id_token, nonce=nonce, now=now, access_token=tokens.access_token,
                             max_age=max_age)
    said = userinfo.completed(idp, provider, said, tokens.access_token)
    name = apple.user_name(params.get("user")) if idp.preset == "apple" else ""
    return claims.identity(idp, said, tokens.id_token, name=name)
