"""What the authorization endpoint answers (RFC 6749 4.1.1-4.1.2, RFC 9207): the sign-in and consent page, the code's
redirect, and the outcome log (ids only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from authgate.assurance import MFA
from authgate.clients.model import Client
from authgate.http.request import Request
from authgate.http.response import NO_STORE, Response
from authgate.http.shapes.oauth import with_query
from authgate.issuer import base_url
from authgate.logs import get_logger
from authgate.oauth.authorization import passkey_page, sealed_form, second_factor
from authgate.oauth.authorization.consent_page import forgot_link, identity_notice, render_consent
from authgate.oauth.authorization.request import AuthorizationRequest, single
from authgate.oauth.clients.profile import code_ttl
from authgate.oauth.resource_indicator import resolve
from authgate.single_use.authentication import Authentication
from authgate.stores.codes import CodeStore
from authgate.tenants.model import Tenant

Fields = dict[str, list[str]]


def form(request: Request, auth: AuthorizationRequest, client: Client, tenant: Tenant, message: str = "",
         username: str = "", posted: Mapping[str, Sequence[str]] | None = None, signed_in_as: str = "") -> Response:
    """The consent page; a re-shown form keeps the posted state and CSRF token unchanged."""
    binding = sealed_form.binding_from(request)
    if posted is not None:
        blob, csrf = (posted.get("request_blob") or [""])[0], (posted.get("csrf") or [""])[0]
    else:
        blob, nonce = sealed_form.seal(auth)
        if binding is None:
            binding = sealed_form.new_binding()
        csrf = sealed_form.csrf_token(binding, nonce)
    self_registered = not client.tenant_id
    # The API the token is for, as its registration describes it (its tenants were checked already).
    resource = resolve(auth.resource, base_url(request), None)
    response = render_consent(request=auth, resource=resource, client_name=client.name or client.client_id,
                              # Never the name of a tenant someone typed: the page must not confirm it exists.
                              tenant_name="your organisation" if self_registered else tenant.name or tenant.tenant_id,
                              blob=blob, csrf=csrf,
                              message=message, username=username, signed_in_as=signed_in_as,
                              identity=identity_notice(client, auth.redirect_uri) if client.source else "",
                              ask_tenant=self_registered,
                              tenant=single(posted, "tenant") or "" if self_registered and posted else "",
                              forgot=forgot_link(client.tenant_id),
                              passkey=passkey_page.relying_party(request) is not None,
                              code=not signed_in_as and second_factor.required(auth, tenant)[0] == MFA)
    if binding is not None and posted is None:
        response.multi_headers["Set-Cookie"] = [sealed_form.binding_cookie(binding, base_url(request))]
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


def log(outcome: str, auth: AuthorizationRequest) -> None:
    # Ids and outcomes only: never the username, password, code or state.
    get_logger().info("authorize", extra={"outcome": outcome, "client_id": auth.client_id,
                                          "tenant": auth.tenant_id, "scope": " ".join(auth.scopes)})
