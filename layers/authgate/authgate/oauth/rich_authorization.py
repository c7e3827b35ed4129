"""Rich Authorization Requests at the endpoints (RFC 9396): what a request asks for, and what a token of a grant carries.

The authorization endpoint and PAR read `authorization_details` with the request's resource
(RFC 9396 2: the charges API's type is `charge`; a registered resource declares its own) and
the tenant's currencies; the grant keeps the checked details. At the token endpoint a request
without the parameter gets the grant's details (6.1), one with it a subset of them (6.2); the
response echoes them (7) and the access token carries them (9.1). Every refusal is
invalid_authorization_details (5).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.authorization_details import model
from authgate.authorization_details.errors import DetailsInvalid
from authgate.failures import as_api_error
from authgate.tokens.jwt_profile import default_audience

if TYPE_CHECKING:
    from authgate.authorization_details.model import Details
    from authgate.resources.model import Resource
    from authgate.tenants.model import Tenant

PARAMETER = "authorization_details"


def _checked(raw: str, resource: Resource, tenant: Tenant | None, issuer: str) -> Details:
    """The details of `raw` as the grant will hold them, or invalid_authorization_details (RFC 9396 5)."""
    currencies = frozenset(c.lower() for c in tenant.currencies) if tenant is not None and tenant.tenant_id else None
    try:
        return model.checked(model.parse(raw), charges_api=resource.builtin, schemas=resource.detail_schemas(),
                             currencies=currencies, charges_url=default_audience(issuer))
    except DetailsInvalid as exc:
        raise as_api_error(exc) from None


def requested(raw: str | None, resource: Resource, tenant: Tenant | None, issuer: str) -> str | None:
    """An authorization request's details (RFC 9396 2, 3) as the canonical JSON its grant keeps; None without.

    `tenant` None or Tenant(""): not known yet (a self-registered client's user has not signed in); the
    currencies are checked again once it is (`requested` over the kept text)."""
    return model.text(_checked(raw, resource, tenant, issuer)) if raw is not None else None


def for_token(raw: str | None, granted: str | None, resource: Resource, tenant: Tenant | None,
              issuer: str) -> Details | None:
    """The details a token of the grant carries: the grant's (RFC 9396 6.1), or those asked for when within them
    (6.2); invalid_authorization_details otherwise."""
    held = model.of_text(granted)
    if raw is None:
        return held
    asked = _checked(raw, resource, tenant, issuer)
    try:
        if held is None:
            raise DetailsInvalid("This grant has no authorization_details: a token request may only narrow the "
                                 "details the user approved (RFC 9396 6.2).")
        return model.narrowed(asked, held)
    except DetailsInvalid as exc:
        raise as_api_error(exc) from None
