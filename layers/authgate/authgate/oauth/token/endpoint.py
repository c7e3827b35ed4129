"""POST /oauth/token (RFC 6749 §3.2): form body, client authentication, grant dispatch, §5.1 response.

Checks run cheapest first and in this order: the body (content type, repeats, grant_type
present), the shape of client authentication (two methods), the grant type (supported),
the client (authenticated), the grant (allowed for the client), then the grant itself. One answer
comes before the client is read: a public client's device-code poll that is still pending, too
early, denied or expired (grants.device_code: the device code, 256 random bits bound to that
public client, is the credential; an approved poll goes through every step).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate import clock
from authgate.errors import ApiError
from authgate.http.response import NO_STORE, Response
from authgate.issuer import base_url
from authgate.oauth.clients.profile import check_grant
from authgate.oauth.resource_indicator import requested_resource
from authgate.oauth.token import client_auth
from authgate.oauth.token.dpop_proof import token_proof
from authgate.oauth.token.form import read_form
from authgate.oauth.token.grants import TokenRequest, grant_for
from authgate.tokens.current_signer import current_signer

if TYPE_CHECKING:
    from authgate.http.request import Request



def post_token(request: Request) -> Response:
    form = read_form(request)
    grant_type = form.get("grant_type")
    if grant_type is None:
        raise ApiError("invalid_request", "The grant_type parameter is required.")
    creds = client_auth.read_credentials(request, form)
    grant = grant_for(grant_type)
    if creds is not None:
        # A public device's poll while the person has not decided (RFC 8628 3.5) is answered here.
        grant.before_authentication(request, form, creds.client_id, creds.method)
    client, prefetched = client_auth.authenticate_with(
        request, form, creds, grant.prefetch(form, creds.client_id) if creds else {}, fetch_documents=True)
    if not grant.allowed(client):
        raise ApiError("unauthorized_client", f"This client may not use the {grant_type} grant.")
    check_grant(client, grant_type)
    if "authorization_details" in form and not grant.TAKES_DETAILS:
        # Never a token wider than asked: details a grant cannot honour are refused, not ignored (RFC 9396 5, 6).
        raise ApiError("invalid_authorization_details", f"The {grant_type} grant takes no authorization_details "
                                                        "here: a person approves them at the authorization endpoint.")
    # Load the signing key before any grant changes state: a key-store fault is then a plain 503
    # with the code or refresh token untouched, not a consumed code whose tokens were never sent.
    # A cold read brings the client's tenant in the same call (the grant reads it next).
    current_signer(client.tenant_id)
    now = clock.seconds()
    # RFC 9449 5: the proof is checked and its jti spent before the grant changes any state.
    issuer = base_url(request)
    resource = requested_resource([form["resource"]] if "resource" in form else [], issuer)
    proof = token_proof(request, client, now)
    result = grant.exchange(TokenRequest(form=form, client=client, issuer=issuer, now=now,
                                         dpop_jkt=proof.jkt if proof else None, resource=resource,
                                         prefetched=prefetched))
    return Response.json(200, result.body(), headers=NO_STORE)
