"""GET /saml/{tenant}/metadata: the tenant's SAML service provider metadata (saml-metadata-2.0-os 2.4.4).

What the administrator of the tenant's identity provider imports (docs/federation.md#what-the-idps-administrator-registers): the SP
entity ID `<issuer>/saml/<tenant>`, its Assertion Consumer Service and its Single Logout Service
(`<issuer>/saml/<tenant>/slo`, HTTP-Redirect: oauth.logout.returns), and the stack's SAML signing
certificates when it has any (federation.saml.sp_keys: KeysTable's one item, warm-cached), built
by federation.saml.sp_metadata. Nothing of the tenant is read: the document is the same whether
or not such a tenant exists or uses SAML, and says nothing about either. Loaded only on this
route (it imports the SAML library).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.errors import ApiError
from authgate.federation.saml import sp_keys
from authgate.federation.saml.sp_metadata import (
    MEDIA_TYPE,
    acs_url,
    slo_url,
    sp_entity_id,
    sp_metadata,
    tenant_path,
)
from authgate.http.response import Response
from authgate.issuer import base_url

if TYPE_CHECKING:
    from authgate.http.request import Request

MAX_AGE = 3600


def get_sp_metadata(request: Request) -> Response:
    tenant = request.path_params.get("tenant", "")
    if not tenant_path(tenant):
        raise ApiError("not_found", "There is no SAML service provider at this path.")
    issuer = base_url(request)
    if not issuer:
        raise ApiError("internal_error", "The issuer is not configured.", internal="no issuer and no API context")
    document = sp_metadata(sp_entity_id(issuer, tenant), acs_url(issuer, tenant), slo_url(issuer, tenant),
                           sp_keys.certificates())
    return Response(200, document.decode("utf-8"), {"Content-Type": MEDIA_TYPE,
                                                     "Cache-Control": f"public, max-age={MAX_AGE}"})
