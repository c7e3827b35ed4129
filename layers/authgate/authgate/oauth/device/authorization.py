"""POST /oauth/device_authorization: the device authorization endpoint (RFC 8628 3.1-3.2).

The client authenticates as at the token endpoint (3.1: a public client sends its client_id);
it must be registered for the device_code grant (`authgate clients create|update --grant
device_code`, off unless asked). `scope` and `resource` are checked as an authorization
request's (RFC 6749 3.3, RFC 8707 2) against the client's tenant. The answer (3.2) is a device
code for the device, a user code for the person (XXXXX-XXXXX, single_use.device_codes), the
verification page with and without the user code, the lifetime and the polling interval.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

from authgate.errors import ApiError
from authgate.http.response import NO_STORE, Response
from authgate.issuer import base_url
from authgate.oauth.authorization.request import client_tenant, consented_scopes
from authgate.oauth.clients import tenant_policy
from authgate.oauth.resource_indicator import requested_resource, resolve
from authgate.oauth.token import client_auth
from authgate.oauth.token.form import read_form
from authgate.single_use.device_codes import GRANT_TYPE, shown
from authgate.stores.device_codes import DeviceCodeStore, UserCodeCollision

if TYPE_CHECKING:
    from authgate.http.request import Request

# The verification page (oauth.device.verification), relative to the issuer.
VERIFICATION_PATH = "/oauth/device"


def post_device_authorization(request: Request) -> Response:
    """1. the form; 2. the client, authenticated as at the token endpoint; 3. its device_code grant and its
    tenant; 4. the resource and scopes; 5. the codes, stored; the 3.2 response, never cached."""
    form = read_form(request)
    creds = client_auth.read_credentials(request, form)
    client = client_auth.authenticate(request, form, creds, fetch_documents=True)
    if not client.allows_grant(GRANT_TYPE) or not client.tenant_id:
        raise ApiError("unauthorized_client", "This client may not use the device authorization grant "
                                              "(RFC 8628 3.1).")
    tenant = client_tenant(client)
    tenant_policy.check(client, tenant)
    if client.requires_admin_approval and not tenant.has_approved(client.client_id):
        raise ApiError("unauthorized_client", "The tenant's administrator has not approved this application.")
    issuer = base_url(request)
    named = requested_resource([form["resource"]] if "resource" in form else [], issuer)
    resource = resolve(named, issuer, tenant.tenant_id)
    scopes = consented_scopes(form.get("scope"), client, tenant, resource)
    try:
        device_code, user_code, record = DeviceCodeStore().create(
            client_id=client.client_id, tenant_id=client.tenant_id, scope=" ".join(scopes), resource=named,
            public_client=client.is_public)
    except UserCodeCollision:
        raise ApiError("service_unavailable", "No free user code was found; retry in a moment.",
                       internal="three user code collisions") from None
    page = issuer + VERIFICATION_PATH
    return Response.json(200, {
        "device_code": device_code,
        "user_code": shown(user_code),
        "verification_uri": page,
        "verification_uri_complete": f"{page}?user_code={quote(shown(user_code))}",
        "expires_in": record.expires_at - record.issued_at,
        "interval": record.interval,
    }, headers=NO_STORE)
