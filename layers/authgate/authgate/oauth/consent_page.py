"""The login + consent page (RFC 6749 4.1.1 "authenticates the resource owner"; RFC 9700 4.15 clickjacking).

Every value is HTML-escaped; the page is never cached, never framed, sends no Referer and may
only submit to this origin (and, because browsers apply form-action to the redirect that follows
a submission, to the client's redirect origin).
"""

from __future__ import annotations

import base64
import hashlib
import html
from functools import lru_cache
from importlib import resources
from string import Template
from urllib.parse import urlsplit

from authgate.http.response import Response
from authgate.oauth.authorize_request import AuthorizationRequest

SCOPE_DESCRIPTIONS = {
    "charges:read": "See your charges",
    "charges:write": "Create charges",
    "charges:refund": "Refund charges",
}

_STYLE = (
    "body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#1d2330;margin:0}"
    "main{max-width:26rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:8px;"
    "box-shadow:0 1px 4px rgba(0,0,0,.12)}"
    "h1{font-size:1.3rem;margin-top:0}label{display:block;margin-top:1rem;font-weight:600}"
    "input{width:100%;box-sizing:border-box;padding:.5rem;margin-top:.25rem;font-size:1rem}"
    ".actions{display:flex;gap:.75rem;margin-top:1.5rem}"
    "button{flex:1;padding:.6rem;font-size:1rem;border:0;border-radius:4px;background:#2456d3;color:#fff;cursor:pointer}"
    "button.secondary{background:#e3e6ec;color:#1d2330}"
    ".message{background:#fdecea;color:#8a1c13;padding:.6rem;border-radius:4px}"
    ".scopes code{font-size:.85rem;color:#555}.fine{font-size:.8rem;color:#666}"
)

WRONG_CREDENTIALS = ("The username or password is incorrect, or this account is temporarily locked "
                     "after repeated failed attempts. Check them and try again in a moment.")
MISSING_CREDENTIALS = "Enter your username and password, then choose Approve."
MISSING_DECISION = "Choose Approve or Deny."


@lru_cache(maxsize=1)
def _template() -> Template:
    text = resources.files(__package__).joinpath("templates/consent.html").read_text("utf-8")
    return Template(text)


@lru_cache(maxsize=1)
def _style_hash() -> str:
    return base64.b64encode(hashlib.sha256(_STYLE.encode("utf-8")).digest()).decode("ascii")


def redirect_origin(uri: str) -> str:
    """scheme://host[:port] of a registered redirect URI (a CSP source expression)."""
    parts = urlsplit(uri)
    if parts.netloc:
        return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"
    return f"{parts.scheme}:"  # private-use scheme of a native app (RFC 8252 7.1)


def security_headers(form_target_origin: str) -> dict[str, str]:
    """Headers of every page this endpoint serves (no cache, no framing, no referrer)."""
    # Only characters that cannot end a CSP directive may reach it; registered URIs are
    # printable ASCII without spaces, but `;` and `,` are legal in a URI.
    extra = form_target_origin if form_target_origin and not any(c in form_target_origin for c in ";, '\"") else ""
    csp = (f"default-src 'none'; style-src 'sha256-{_style_hash()}'; img-src 'self'; "
           f"form-action 'self'{' ' + extra if extra else ''}; frame-ancestors 'none'; base-uri 'none'")
    return {
        "Content-Type": "text/html; charset=utf-8",
        "Cache-Control": "no-store",
        "Pragma": "no-cache",
        "Content-Security-Policy": csp,
        "X-Frame-Options": "DENY",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
    }


def render_consent(*, request: AuthorizationRequest, client_name: str, tenant_name: str, blob: str, csrf: str,
                   message: str = "", username: str = "", status: int = 200) -> Response:
    """The form: username, password, decision=approve|deny, and the hidden signed state."""
    e = html.escape
    items = "\n".join(
        f'<li>{e(SCOPE_DESCRIPTIONS.get(s, s))} <code>{e(s)}</code></li>' for s in request.scopes)
    origin = redirect_origin(request.redirect_uri)
    page = _template().substitute(
        style=_STYLE,
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
    return Response(status, page, security_headers(origin))
