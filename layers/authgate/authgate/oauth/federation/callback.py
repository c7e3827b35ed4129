"""Where an identity provider's answer to a sign-in arrives (docs/federation.md): GET|POST /oauth/federation/callback
(OpenID Connect: the query, or a form POST such as Apple's `response_mode=form_post`) and POST /saml/{tenant}/acs
(SAML 2.0's HTTP-POST binding, Bindings 3.5).

Thin handlers: the answer's parameters, each once, read at the edge; everything else is the interaction's
(interaction.upstream_callback). Every failure is a page (the authorize surface, no redirect trusted): nothing an
answer says is a place to send the browser. Loaded on these routes' first request only; the protocols' libraries
on the first answer of their protocol.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from authgate.errors import ApiError
from authgate.interaction.upstream_callback import answered

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.http.response import Response

FORM = "application/x-www-form-urlencoded"
# An answer's parameters are few and short, but a SAMLResponse is a signed XML document (federation.saml.response).
MAX_PARAMETERS = 20


def get_callback(request: Request) -> Response:
    """An OpenID Provider's answer in the query (OpenID Connect Core 3.1.2.5, 3.1.2.6)."""
    return answered(request, _once((name, value) for name, values in request.query.items() for value in values))


def post_callback(request: Request) -> Response:
    """An OpenID Provider's answer posted as a form (OAuth 2.0 Form Post Response Mode 2)."""
    return answered(request, _once(_form(request)))


def post_acs(request: Request) -> Response:
    """A SAML IdP's Response posted to the tenant's Assertion Consumer Service, with its RelayState."""
    return answered(request, _once(_form(request)), saml_tenant=request.path_params.get("tenant", ""))


def _form(request: Request) -> list[tuple[str, str]]:
    if request.content_type != FORM:
        raise ApiError("invalid_request", "The answer must be posted as application/x-www-form-urlencoded.")
    return request.form()


def _once(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The parameters, each at most once (RFC 6749 3.1: a repeated parameter is refused)."""
    found: dict[str, str] = {}
    for name, value in pairs:
        if name in found:
            raise ApiError("invalid_request", f"The {name[:40]} parameter is repeated.")
        found[name] = value
        if len(found) > MAX_PARAMETERS:
            raise ApiError("invalid_request", "The answer has too many parameters.")
    return found
