"""OAuth error responses: token-endpoint JSON (RFC 6749 5.2) and authorization redirects (4.1.2.1).

Application codes that are not OAuth codes map onto the RFC's codes while the HTTP status is
kept: 429/503 -> temporarily_unavailable, other 5xx -> server_error, other 4xx ->
invalid_request. `error_uri` (5.2) points at the problem-type page of the application code,
so the precise reason is never lost. The redirect adds `iss` (RFC 9207 2) and keeps the
registered redirect URI's own query (RFC 6749 3.1.2).
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from authgate.errors.challenges import basic
from authgate.errors.description import oauth_description
from authgate.http.pages import head
from authgate.http.pages.assets import depth_of
from authgate.http.pages.headers import page_headers
from authgate.http.pages.onward import onward_link
from authgate.http.response import NO_STORE, Response
from authgate.issuer import base_url, problem_type

if TYPE_CHECKING:
    from authgate.errors.model import ApiError, OAuthCode
    from authgate.http.request import Request

# Codes a token, revocation or introspection endpoint may return as they are:
# RFC 6749 5.2, RFC 7009 2.2.1 (unsupported_token_type), and the 4.1.2.1 codes for 5xx stand-ins.
TOKEN_ENDPOINT_CODES = frozenset({
    "invalid_request", "invalid_client", "invalid_grant", "unauthorized_client",
    "unsupported_grant_type", "invalid_scope", "unsupported_token_type",
    "server_error", "temporarily_unavailable",
    # RFC 9449 5.0 and 8 (DPoP), RFC 8707 2 (resource indicators).
    "invalid_dpop_proof", "use_dpop_nonce", "invalid_target",
    # RFC 8628 3.5 (a device's poll) and OpenID Connect CIBA Core 11 (the poll's answers) and 13 (the
    # backchannel authentication endpoint).
    "access_denied", "authorization_pending", "slow_down", "expired_token", "invalid_binding_message",
    # RFC 9396 5, 6.2 (rich authorization requests).
    "invalid_authorization_details",
})
# RFC 6749 4.1.2.1 codes for the authorization endpoint's redirect.
AUTHORIZE_CODES = frozenset({
    "invalid_request", "unauthorized_client", "access_denied", "unsupported_response_type",
    "invalid_scope", "server_error", "temporarily_unavailable",
    # RFC 8707 2: an authorization request's unknown resource; RFC 9396 5: its authorization_details.
    "invalid_target", "invalid_authorization_details",
    # OpenID Connect Core 3.1.2.6 and 5.5.1.1.
    "login_required", "consent_required", "interaction_required", "account_selection_required",
    "unmet_authentication_requirements", "request_not_supported", "registration_not_supported",
})


def oauth_error_code(error: ApiError, allowed: frozenset[str] = TOKEN_ENDPOINT_CODES) -> OAuthCode:
    """The RFC code for an error: its explicit oauth_error, its own code, or the status's stand-in."""
    if error.oauth_error:
        return error.oauth_error
    if error.code in allowed:
        return error.code  # type: ignore[return-value]  # an allowed code is an OAuth code
    if error.status in (429, 503):
        return "temporarily_unavailable"
    if error.status >= 500:
        return "server_error"
    return "invalid_request"


def oauth_json(error: ApiError, request: Request | None) -> Response:
    """RFC 6749 5.2 JSON error with no-store; invalid_client is 401 and challenges with Basic (5.2).

    Whatever raised it (client authentication, a refused metadata document, which is a page at the
    authorization endpoint), a client that failed to authenticate here is told so by 401."""
    code = oauth_error_code(error)
    body = {
        "error": code,
        "error_description": oauth_description(error.detail),
        "error_uri": problem_type(request, error.code),
    }
    response = Response.json(401 if code == "invalid_client" else error.status, body, "application/json",
                             headers=NO_STORE)
    if response.status == 401:
        response.set_header("WWW-Authenticate", basic())
    for name, value in error.headers.items():
        response.set_header(name, value)
    return response


def authorization_redirect(redirect_uri: str, error: str, description: str = "", state: str | None = None,
                           issuer: str = "") -> str:
    """The Location of an authorization error response (RFC 6749 4.1.2.1, RFC 9207 2).

    `redirect_uri` must already be the validated, registered one; its query is kept, and any
    parameter of ours it already carries is replaced rather than repeated.
    """
    ours = [("error", error)]
    if description:
        ours.append(("error_description", oauth_description(description)))
    if state is not None:
        ours.append(("state", state))
    if issuer:
        ours.append(("iss", issuer))
    return with_query(redirect_uri, ours)


def with_query(redirect_uri: str, params: list[tuple[str, str]]) -> str:
    """The redirect URI with our parameters added, its own query kept (RFC 6749 3.1.2).

    A parameter of ours the URI already carries is replaced rather than repeated; the fragment
    is dropped (a redirect URI must not have one).
    """
    scheme, netloc, path, query, _fragment = urlsplit(redirect_uri)
    names = {name for name, _ in params}
    kept = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k not in names]
    return urlunsplit((scheme, netloc, path, urlencode(kept + params), ""))


def authorize_error(error: ApiError, request: Request | None) -> Response:
    """The authorization endpoint's failure: a redirect to the client when safe, else an error page.

The redirect is 302 from GET and 303 from the sign-in form's POST (RFC 9700 4.12, FAPI 2.0
5.3.2.2 item 11: 303 makes every user agent follow with a GET that carries no credentials).

    The authorize flow sets request.context.redirect only once client_id and redirect_uri are
    known to be good; before that, an error must never redirect (RFC 6749 4.1.2.1, 10.15), so
    the user sees a page instead.
    """
    trusted = request.context.redirect if request is not None else None
    if trusted is not None:
        location = authorization_redirect(trusted.redirect_uri, oauth_error_code(error, AUTHORIZE_CODES),
                                          error.detail, trusted.state, base_url(request))
        if not trusted.follow:
            return error_page(error, request, onward=location)
        return Response(303 if request is not None and request.method == "POST" else 302, "",
                        {"Location": location, **NO_STORE})
    return error_page(error, request)


def error_page(error: ApiError, request: Request | None, onward: str = "", *, oauth: bool = True) -> Response:
    """The page a person sees when nothing may be redirected: heading, what went wrong, codes, request id.

    Escaped, client-facing text only, with the pages' shared stylesheet and strict headers
    (no-store: it describes this one request). `onward`: the error response a self-registered
    client would have been sent, offered as a link (http.pages.onward). `oauth`: the page of an
    OAuth endpoint, which names the RFC 6749 code too; a page of none (the console's) names only
    ours, and links the stylesheet under the issuer (its pages live at several depths).
    """
    request_id = request.request_id if request else ""
    title = html.escape(error.title)
    # The RFC 6749 4.1.2.1 code the case would carry in a redirect, beside a finer one of ours:
    # what clients and support staff search for (unauthorized_client for a client of another
    # environment, invalid_request for an unknown client or redirect URI, ...).
    code = oauth_error_code(error, AUTHORIZE_CODES) if oauth else error.code
    named = "" if code == error.code else f" &middot; OAuth error <code>{html.escape(code)}</code>"
    links = head.links(depth_of(request.resource) if request else 1) if oauth else head.links(root=base_url(request))
    page = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="referrer" content="no-referrer"><title>{title}</title>{links}</head>'
        f'<body><main class="error"><h1>{title}</h1><p>{html.escape(error.detail)}</p>'
        f'<p class="meta">Error code: <code>{html.escape(error.code)}</code>{named}'
        + (f" &middot; request id <code>{html.escape(request_id)}</code>" if request_id else "")
        + "</p>" + (onward_link(onward) if onward else "") + "</main></body></html>"
    )
    response = Response(error.status, page, page_headers())
    for name, value in error.headers.items():
        response.set_header(name, value)
    return response

