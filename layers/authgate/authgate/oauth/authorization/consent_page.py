"""The login + consent page (RFC 6749 4.1.1 "authenticates the resource owner"; RFC 9700 4.15 clickjacking).

Every value is HTML-escaped; the page carries authgate.http.pages' header set: never cached, never
framed, no Referer, the shared stylesheet and icon only, and it may only submit to this origin (and,
because browsers apply form-action to the redirect that follows a submission, to the client's
redirect origin).
"""

from __future__ import annotations

import html
import os
from string import Template
from urllib.parse import quote, urlsplit

from authgate.authorization_details.model import described, of_text
from authgate.caches import cached
from authgate.clients.model import DOCUMENT_SOURCE, Client
from authgate.http.pages import head, messages
from authgate.http.pages.headers import page_headers
from authgate.http.pages.onward import origin
from authgate.http.response import Response
from authgate.mail.sender import available
from authgate.oauth.authorization.request import AuthorizationRequest
from authgate.oauth.scopes import IDENTITY_SCOPE_DESCRIPTIONS
from authgate.resources.model import Resource

# open(), not importlib.resources: its import lengthens a cold start (docs/decisions.md).
TEMPLATE_FILE = os.path.join(os.path.dirname(__file__), "templates", "consent.html")


@cached
def _template() -> Template:
    with open(TEMPLATE_FILE, encoding="utf-8") as f:
        return Template(f.read())


def redirect_origin(uri: str) -> str:
    """scheme://host[:port] of a registered redirect URI (a CSP source expression; `scheme:` for a native app's
    private-use scheme, RFC 8252 7.1)."""
    return origin(uri)


def _host(uri: str) -> str:
    parts = urlsplit(uri)
    return parts.hostname or parts.scheme


def _only_localhost(uris: tuple[str, ...]) -> bool:
    return bool(uris) and all((urlsplit(u).hostname or "") in ("localhost", "127.0.0.1", "::1") for u in uris)


def identity_notice(client: Client, redirect_uri: str) -> str:
    """What a person must know about a client that registered itself (draft-ietf-oauth-client-id-metadata-document-02
    8.5: show the client_id's host; MCP 2025-11-25 security: warn about localhost redirects)."""
    e = html.escape
    lines = []
    if client.source == DOCUMENT_SOURCE:
        host = _host(client.client_id)
        if client.name:
            lines.append(f'<p class="identity">{e(client.name)} describes itself in a document on '
                         f'<strong class="document-host">{e(host)}</strong> (<code>{e(client.client_id)}</code>). '
                         "authgate has not verified who runs it.</p>")
        else:
            lines.append('<p class="identity warning" role="note">This application gave no name: all that is known '
                         f'about it is its address, <code>{e(client.client_id)}</code> on '
                         f'<strong class="document-host">{e(host)}</strong>. Approve only if you recognise '
                         "this address.</p>")
    else:
        lines.append('<p class="identity warning" role="note">This application registered itself: authgate has not '
                     "verified who runs it. Approve only if you started it yourself.</p>")
    lines.append(f'<p class="redirect">After you decide, you will be sent to '
                 f'<strong class="redirect-host">{e(_host(redirect_uri))}</strong>.</p>')
    if _only_localhost(client.redirect_uris):
        lines.append('<p class="warning localhost" role="alert">Every address this application can receive the '
                     "answer at is on this device (localhost): any program running on your computer could be "
                     "the one asking. Approve only if you have just started this application yourself.</p>")
    return "\n".join(lines)


def forgot_link(tenant_id: str) -> str:
    """The links to the forgotten-password page (account.forgotten_password; only where the stage
    sends mail) and the account page (account.page), relative to /oauth/authorize."""
    account = '<a href="account">Manage your account</a>'
    if not available():
        return f'<p class="fine">{account}</p>'
    query = f"?tenant={quote(tenant_id, safe='')}" if tenant_id else ""
    return f'<p class="fine"><a href="forgot-password{html.escape(query)}">Forgot your password?</a> · {account}</p>'


def what_is_granted(resource: Resource, scopes: tuple[str, ...]) -> tuple[str, str, str]:
    """The API the token is for, what it holds, and each scope once with the resource's words for it (RFC 8707 2,
    RFC 6749 3.3): HTML, escaped."""
    e = html.escape
    name = e(resource.name or resource.resource)
    about = [e(resource.description)] if resource.description else []
    if resource.name:
        about.append(f"<code>{e(resource.resource)}</code>")
    described = {**dict(IDENTITY_SCOPE_DESCRIPTIONS), **{s: resource.describes(s) for s in scopes if resource.describes(s)}}
    items = "\n".join(f"<li>{e(described[s])} <code>{e(s)}</code></li>" if s in described
                      else f"<li><code>{e(s)}</code></li>" for s in scopes)
    return name, f'<p class="resource-about">{" ".join(about)}</p>' if about else "", items


def what_is_asked(details: str | None) -> str:
    """The authorization_details in plain words, one item each (RFC 9396 2; never raw JSON): HTML, escaped."""
    if not details:
        return ""
    items = "\n".join(f"<li>{html.escape(line)}</li>" for line in described(of_text(details) or ()))
    return f'<p class="details-intro">and asks you to approve, this time only:</p>\n<ul class="details">\n{items}\n</ul>'


def render_consent(*, request: AuthorizationRequest, resource: Resource, client_name: str, tenant_name: str,
                   blob: str, csrf: str, sign_in: str, decision: str, message: str = "", status: int = 200,
                   identity: str = "", forgot: str = "") -> Response:
    """The form: the interaction's sign-in fields (`sign_in`, interaction.sign_in_fields) and decision (`decision`),
    and the hidden signed state.

    `resource` is the API the token will be for; `identity` is `identity_notice` for a
    self-registered client; `forgot` is the forgotten-password link (HTML), where the stage sends mail."""
    e = html.escape
    resource_name, resource_about, items = what_is_granted(resource, request.scopes)
    origin = redirect_origin(request.redirect_uri)
    page = _template().substitute(
        head_links=head.links(),
        client_name=e(client_name),
        tenant_name=e(tenant_name),
        resource_name=resource_name,
        resource_about=resource_about,
        scope_items=items,
        details=what_is_asked(request.authorization_details),
        message=messages.alert(message),
        # Relative, so the form posts back to wherever this page was served (stage path or custom domain).
        action="authorize",
        request_blob=e(blob),
        csrf=e(csrf),
        sign_in=sign_in,
        decision=decision,
        redirect_origin=e(origin),
        identity=identity,
        forgot=forgot,
    )
    # Browsers apply form-action to the redirect that follows the submission: the client's
    # redirect origin must be allowed too, or the approval never reaches it.
    return Response(status, page, page_headers(form_action=[origin]))
