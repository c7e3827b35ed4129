"""What a backchannel request asks, in plain words for the person who approves it (OpenID Connect CIBA Core 1.0 7.1
scope; the consent page's wording). RFC 9396 authorization_details, once requests carry them, add their lines here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.oauth.resource_indicator import resolve
from authgate.oauth.scopes import IDENTITY_SCOPE_DESCRIPTIONS, parse_scope

if TYPE_CHECKING:
    from authgate.approvals.backchannel_request import BackchannelRequest


def what_is_asked(request: BackchannelRequest, issuer: str) -> tuple[str, ...]:
    """One line per scope: the resource's (or the OpenID Provider's) description, else the scope itself."""
    resource = resolve(request.resource or None, issuer, request.tenant_id)
    described = dict(IDENTITY_SCOPE_DESCRIPTIONS)
    return tuple(described.get(scope) or resource.describes(scope) or scope for scope in parse_scope(request.scope))
