"""POST /oauth/par: the pushed authorization request endpoint (RFC 9126 2).

The client authenticates exactly as at the token endpoint (2: "the same rules"), then the
authorization request is validated as the authorization endpoint would validate it (2.1), so
its mistakes come back here as 400 OAuth JSON (2.3) rather than later in the person's browser:
the client and redirect URI, response_type, PKCE, scope, the client's profile. Accepted, the
whole parameter set is stored for 60 s and answered 201 with a `request_uri` (2.2).
A DPoP proof sent with the push binds the code to its key, as `dpop_jkt` would (RFC 9449 10.1).
Request objects (`request`, RFC 9101) are not supported and refused; `request_uri` MUST NOT
be pushed (2.1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate import clock
from authgate.errors import ApiError
from authgate.http.response import NO_STORE, Response
from authgate.issuer import base_url
from authgate.oauth import client_auth
from authgate.oauth.authorize_request import resolve_target, validate
from authgate.oauth.client_profile import check_authorization
from authgate.oauth.form import read_form
from authgate.oauth.token_proof import token_proof
from authgate.stores.pushed_requests import PushedRequestStore
from authgate.stores.tenants import Tenant, TenantStore

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.http.request import Request

# Relied upon for client authentication only, never part of the authorization request (2.1).
AUTHENTICATION_PARAMETERS = ("client_secret", "client_assertion", "client_assertion_type")


def post_par(request: Request) -> Response:
    form = read_form(request)
    if "request_uri" in form:
        raise ApiError("invalid_request", "request_uri must not be pushed (RFC 9126 2.1).")
    if "request" in form:
        raise ApiError("invalid_request", "Request objects (the request parameter, RFC 9101) are not supported; "
                                          "push the authorization parameters themselves.")
    creds = client_auth.read_credentials(request, form)
    client = client_auth.authenticate(request, form, creds, resolve_documents=True)
    # client_id is a required authorization request parameter (2.1); Basic credentials and an
    # assertion name the client already, and a different client_id was refused with them.
    form = {**form, "client_id": client.client_id}
    params = {name: [value] for name, value in form.items() if name not in AUTHENTICATION_PARAMETERS}
    target = resolve_target(params, client)
    # A self-registered client has no tenant before a user signs in: its request is checked
    # against no tenant's rules here, and against the user's tenant's at the authorization endpoint.
    tenant = TenantStore().get(client.tenant_id) if client.tenant_id else Tenant(tenant_id="")
    if tenant is None:
        raise ApiError("server_error", internal=f"tenant {client.tenant_id!r} of client {client.client_id!r} not found")
    _bind_to_proof_key(request, client, params)
    auth = validate(params, target, tenant, base_url(request))
    check_authorization(client, auth.redirect_uri_sent, auth.code_challenge, auth.redirect_uri)
    request_uri, lifetime = PushedRequestStore().create(client.client_id, params)
    return Response.json(201, {"request_uri": request_uri, "expires_in": lifetime}, headers=NO_STORE)


def _bind_to_proof_key(request: Request, client: Client, params: dict[str, list[str]]) -> None:
    """A DPoP proof at PAR: checked like the token endpoint's, its key becomes the code's dpop_jkt (RFC 9449 10.1)."""
    if not request.headers.get_all("dpop"):
        return  # PAR itself never requires a proof; the token request will
    proof = token_proof(request, client, clock.seconds())
    assert proof is not None
    sent = params.get("dpop_jkt")
    if sent and sent != [proof.jkt]:
        # RFC 9449 10.1: both present and different -> reject.
        raise ApiError("invalid_dpop_proof", "dpop_jkt does not match the key of the DPoP proof (RFC 9449 10.1).")
    params["dpop_jkt"] = [proof.jkt]
