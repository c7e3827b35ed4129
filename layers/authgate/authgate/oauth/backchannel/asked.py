"""What a backchannel request asks, in plain words for the person who approves it (OpenID Connect CIBA Core 1.0 7.1
scope; RFC 9396 2 authorization_details): the consent page's wording, never raw JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.authorization_details.model import described, of_text
from authgate.oauth.resource_indicator import resolve
from authgate.oauth.scopes import IDENTITY_SCOPE_DESCRIPTIONS, parse_scope

if TYPE_CHECKING:
    from authgate.approvals.backchannel_request import BackchannelRequest


def what_is_asked(request: BackchannelRequest, issuer: str) -> tuple[str, ...]:
    """One line per scope (the resource's or the OpenID Provider's description, else the scope itself), then one
    per authorization_details object (authorization_details.model.described)."""
    resource = resolve(request.resource or None, issuer, request.tenant_id)
    described_scopes = dict(IDENTITY_SCOPE_DESCRIPTIONS)
    scopes = tuple(described_scopes.get(scope) or resource.describes(scope) or scope
                   for scope in parse_scope(request.scope))
    return scopes + described(of_text(request.authorization_details) or ())
