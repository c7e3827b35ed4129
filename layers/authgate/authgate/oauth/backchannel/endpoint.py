"""POST /oauth/backchannel: the backchannel authentication endpoint (OpenID Connect CIBA Core 1.0 7, poll mode).

Checks run as at the token endpoint, cheapest first: the form body, client authentication (7.1:
as at the token endpoint), a confidential client of a tenant allowed the CIBA grant, the
tenant's switches, then the request itself (7.1): `scope` with openid, `authorization_details`
(RFC 9396 2: checked as at PAR and the authorization endpoint), exactly one hint, `binding_message`,
`requested_expiry`. `acr_values` is accepted and needs nothing more: an
approval is always a sign-in at level mfa. `user_code` is not supported
(backchannel_user_code_parameter_supported false) and ignored. The answer is 200
`{auth_req_id, expires_in, interval}` (7.3), the same whether or not the hint names a user the
tenant knows (login_hint: the same reads, the same writes; section 13's unknown_user_id is never
answered, docs/ciba.md). A known person is then told through the tenant's approval channel
(oauth.backchannel.channel: a signed webhook through the deliveries queue, mail), with a
single-use link to the approval page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.approvals.backchannel_request import GRANT_TYPE
from authgate.errors import ApiError
from authgate.http.response import NO_STORE, Response
from authgate.issuer import base_url
from authgate.oauth import rich_authorization
from authgate.oauth.backchannel.asked import what_is_asked
from authgate.oauth.backchannel.channel import notify
from authgate.oauth.backchannel.login_hint import named_user
from authgate.oauth.clients import tenant_policy
from authgate.oauth.resource_indicator import granted_resource, requested_resource
from authgate.oauth.scopes import format_scope
from authgate.oauth.token import client_auth
from authgate.oauth.token.form import read_form
from authgate.oauth.token.grants.base import current_scopes, requested_scopes
from authgate.stores.backchannel_requests import BackchannelRequestStore
from authgate.stores.tenant_cache import get_tenant

if TYPE_CHECKING:
    from collections.abc import Mapping

    from authgate.http.request import Request

# CIBA 7.3 expires_in: how long a request waits for its approval unless requested_expiry says
# otherwise (7.1), within these bounds; interval: the poll's minimum spacing (7.3, 11 slow_down).
DEFAULT_EXPIRY = 300
MIN_EXPIRY, MAX_EXPIRY = 30, 600
INTERVAL = 5
# CIBA 7.1 binding_message: "relatively short", shown on the user's device.
MAX_BINDING_MESSAGE = 100


def post_backchannel(request: Request) -> Response:
    form = read_form(request)
    creds = client_auth.read_credentials(request, form)
    client = client_auth.authenticate(request, form, creds)
    if client.is_public or not client.tenant_id:
        raise ApiError("unauthorized_client", "Only a confidential client of a tenant may make backchannel "
                                              "authentication requests (OpenID Connect CIBA Core 7.1).")
    if not client.allows_grant(GRANT_TYPE):
        raise ApiError("unauthorized_client", f"This client may not use the {GRANT_TYPE} grant.")
    tenant = get_tenant(client.tenant_id)
    tenant_policy.check(client, tenant, grant=True)
    issuer = base_url(request)
    scopes = requested_scopes(form.get("scope"))
    if scopes is None or "openid" not in scopes:
        raise ApiError("invalid_scope", "The scope parameter must include openid (OpenID Connect CIBA Core 7.1).")
    resource = granted_resource(None, requested_resource([form.get("resource", "")], issuer), issuer,
                                client.tenant_id)
    scopes = current_scopes(scopes, scopes, client, tenant, resource)
    # RFC 9396 2, as at PAR and the authorization endpoint: checked for the resource and the tenant's currencies.
    details = rich_authorization.requested(form.get(rich_authorization.PARAMETER), resource, tenant, issuer)
    binding_message = _binding_message(form)
    lifetime = _expiry(form)
    user = named_user(form, client, issuer)
    store = BackchannelRequestStore()
    auth_req_id, record = store.create(
        client_id=client.client_id, tenant_id=client.tenant_id, user_id=user.user_id, username=user.username,
        scope=format_scope(scopes), binding_message=binding_message, lifetime=lifetime, interval=INTERVAL,
        resource="" if resource.builtin else resource.resource, authorization_details=details)
    # Written and queued for nobody too: the same writes and the same queued message whoever the hint names (only
    # a known user is told: channel.notify).
    link = f"{issuer}/oauth/approve?token={store.add_link(record)}"
    notify(record, link=link, client_name=client.name or client.client_id, asked=what_is_asked(record, issuer),
           issuer=issuer, tenant=tenant, email=user.email)
    return Response.json(200, {"auth_req_id": auth_req_id, "expires_in": lifetime, "interval": INTERVAL},
                         headers=NO_STORE)


def _binding_message(form: Mapping[str, str]) -> str:
    """CIBA 7.1 binding_message: shown to the user as is, so short and printable; else invalid_binding_message (13)."""
    message = form.get("binding_message", "")
    if len(message) > MAX_BINDING_MESSAGE or not message.isprintable():
        raise ApiError("invalid_binding_message", f"The binding_message must be at most {MAX_BINDING_MESSAGE} "
                                                  "printable characters (OpenID Connect CIBA Core 7.1).")
    return message


def _expiry(form: Mapping[str, str]) -> int:
    """CIBA 7.1 requested_expiry: a positive integer of seconds, here within MIN_EXPIRY..MAX_EXPIRY."""
    raw = form.get("requested_expiry")
    if raw is None:
        return DEFAULT_EXPIRY
    if not raw.isascii() or not raw.isdigit() or not MIN_EXPIRY <= int(raw) <= MAX_EXPIRY:
        raise ApiError("invalid_request", f"requested_expiry must be a whole number of seconds from {MIN_EXPIRY} "
                                          f"to {MAX_EXPIRY} (OpenID Connect CIBA Core 7.1).")
    return int(raw)
