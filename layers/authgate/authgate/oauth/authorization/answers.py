"""What the authorization endpoint answers (RFC 6749 4.1.1-4.1.2, RFC 9207): the sign-in and consent page (its sign-in
fields and decision the interaction's, interaction.sign_in_fields), and the code's redirect."""

from __future__ import annotations

from collections.abc import Mapping

from authgate.clients.model import Client
from authgate.http.request import Request
from authgate.http.response import NO_STORE, Response
from authgate.http.shapes.oauth import with_query
from authgate.interaction import passkey_page, sign_in_fields, steps
from authgate.interaction.binding import binding_cookie, binding_from, csrf_token, new_binding
from authgate.issuer import base_url
from authgate.oauth.authorization import sealed_form
from authgate.oauth.authorization.consent_page import forgot_link, identity_notice, render_consent
from authgate.oauth.authorization.hand_off import hand_off
from authgate.oauth.authorization.outcome_log import log
from authgate.oauth.authorization.request import AuthorizationRequest
from authgate.oauth.authorization.sealed_form import Sealed
from authgate.oauth.clients.profile import code_ttl
from authgate.oauth.resource_indicator import resolve
from authgate.single_use.authentication import Authentication
from authgate.stores.codes import CodeStore
from authgate.stores.identity_provider_cache import sign_in_options
from authgate.tenants.model import Tenant

Fields = dict[str, list[str]]
# The step of a signed-in person's consent-only form (interaction.steps names the interaction's).
CONSENT = "consent"


def form(request: Request, auth: AuthorizationRequest, client: Client, tenant: Tenant, message: str = "",
         username: str = "", posted: Mapping[str, str] | None = None, signed_in_as: str = "",
         sealed: Sealed | None = None) -> Response:
    """The consent page, its form of step `password` (the sign-in) or `consent` (a signed-in person's decision); a
    re-shown form (`posted`, its `sealed` state) keeps the posted request's nonce, expiry and CSRF token."""
    binding = binding_from(request)
    step = CONSENT if signed_in_as else steps.PASSWORD
    if posted is not None and sealed is not None:
        blob, csrf = sealed.again(step), posted.get("csrf", "")
    else:
        blob, nonce = sealed_form.seal(auth, step)
        if binding is None:
            binding = new_binding()
        csrf = csrf_token(binding, nonce)
    self_registered = not client.tenant_id
    # The API the token is for, as its registration describes it (its tenants were checked already).
    resource = resolve(auth.resource, base_url(request), None)
    handoff = hand_off(request, client, tenant, auth, lambda step: [])
    # The tenant's identity providers (read with the tenant by the GET's batch, else from the warm cache).
    options = sign_in_options(tenant.tenant_id) if not signed_in_as else ()
    sign_in = sign_in_fields.fields(handoff, username=username, organisation=(posted or {}).get("tenant", ""),
                                    signed_in_as=signed_in_as, options=options)
    response = render_consent(request=auth, resource=resource, client_name=client.name or client.client_id,
                              # Never the name of a tenant someone typed: the page must not confirm it exists.
                              tenant_name="your organisation" if self_registered else tenant.name or tenant.tenant_id,
                              blob=blob, csrf=csrf, message=message, sign_in=sign_in,
                              decision=sign_in_fields.decision(
                                  passkey=not signed_in_as and passkey_page.relying_party(request) is not None,
                                  options=options),
                              identity=identity_notice(client, auth.redirect_uri) if client.source else "",
                              forgot=forgot_link(client.tenant_id))
    if binding is not None and sealed is None:
        response.multi_headers["Set-Cookie"] = [binding_cookie(binding, base_url(request))]
    return response


def code_redirect(request: Request, client: Client, auth: AuthorizationRequest, username: str,
                  authentication: Authentication, grant_id: str, status: int = 303) -> Response:
    """The authorization response: a code bound to everything the request said and to the sign-in the ID
    token will state (RFC 6749 4.1.2, RFC 9207, OpenID Connect Core 3.1.2.5)."""
    code = CodeStore().create(
        client_id=auth.client_id, tenant_id=auth.tenant_id,
        redirect_uri=auth.redirect_uri, redirect_uri_sent=auth.redirect_uri_sent,
        code_challenge=auth.code_challenge, code_challenge_method=auth.code_challenge_method,
        scope=" ".join(auth.scopes), subject=username, ttl=code_ttl(client),
        dpop_jkt=auth.dpop_jkt, resource=auth.resource, nonce=auth.nonce, authentication=authentication,
        grant_id=grant_id, authorization_details=auth.authorization_details,
    )
    log("approved", auth)
    params = [("code", code)] + ([("state", auth.state)] if auth.state is not None else [])
    params.append(("iss", base_url(request)))
    # From the form, 303, not 302 or 307: the browser follows with a GET and never re-posts the
    # password (RFC 9700 4.12; FAPI 2.0 5.3.2.2 item 11). From a GET (single sign-on), 302.
    return Response(status, "", {"Location": with_query(auth.redirect_uri, params), **NO_STORE,
                                 "Referrer-Policy": "no-referrer"})
