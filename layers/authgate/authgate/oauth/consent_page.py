"""The login + consent page (RFC 6749 4.1.1 "authenticates the resource owner"; RFC 9700 4.15 clickjacking).

Every value is HTML-escaped; the page carries authgate.http.pages' header set: never cached, never
framed, no Referer, the shared stylesheet only, and it may only submit to this origin (and,
because browsers apply form-action to the redirect that follows a submission, to the client's
redirect origin).
"""

from __future__ import annotations

import html
import os
from string import Template
from urllib.parse import urlsplit

from authgate.caches import cached
from authgate.http.pages import stylesheet
from authgate.http.pages.headers import page_headers
from authgate.http.response import Response
from authgate.oauth.authorize_request import AuthorizationRequest

SCOPE_DESCRIPTIONS = {
    "charges:read": "See your charges",
    "charges:write": "Create charges",
    "charges:refund": "Refund charges",
}

WRONG_CREDENTIALS = ("The username or password is incorrect, or this account is temporarily locked "
                     "after repeated failed attempts. Check them and try again in a moment.")
MISSING_CREDENTIALS = "Enter your username and password, then choose Approve."
MISSING_DECISION = "Choose Approve or Deny."
# open(), not importlib.resources: its import lengthens a cold start (docs/decisions.md).
TEMPLATE_FILE = os.path.join(os.path.dirname(__file__), "templates", "consent.html")


@cached
def _template() -> Template:
    with open(TEMPLATE_FILE, encoding="utf-8") as f:
        return Template(f.read())


def redirect_origin(uri: str) -> str:
    """scheme://host[:port] of a registered redirect URI (a CSP source expression)."""
    parts = urlsplit(uri)
    if parts.netloc:
        return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"
    return f"{parts.scheme}:"  # private-use scheme of a native app (RFC 8252 7.1)


def render_consent(*, request: AuthorizationRequest, client_name: str, tenant_name: str, blob: str, csrf: str,
                   message: str = "", username: str = "", status: int = 200) -> Response:
    """The form: username, password, decision=approve|deny, and the hidden signed state."""
    e = html.escape
    items = "\n".join(
        f'<li>{e(SCOPE_DESCRIPTIONS.get(s, s))} <code>{e(s)}</code></li>' for s in request.scopes)
    origin = redirect_origin(request.redirect_uri)
    page = _template().substitute(
        stylesheet=stylesheet.link(),
        client_name=e(client_name),
        tenant_name=e(tenant_name),
        scope_items=items,
        message=f'<p class="message" role="alert">{e(message)}</p>' if message else "",
        # Relative, so the form posts back to wherever this page was served (stage path or custom domain).
        action="authorize",
        request_blob=e(blob),
        csrf=e(csrf),
        username=e(username),
        username_focus="" if username else "autofocus",
        password_focus="autofocus" if username else "",
        redirect_origin=e(origin),
    )
    # Browsers apply form-action to the redirect that follows the submission: the client's
    # redirect origin must be allowed too, or the approval never reaches it.
    return Response(status, page, page_headers(form_action=[origin]))
