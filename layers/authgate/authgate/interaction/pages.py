"""What the account pages share (forgotten password, account page): the page, its CSRF fields, the posted form.

CSRF as for the consent form (oauth.authorization.sealed_form): a token bound to this browser's binding
cookie and a nonce of the page, under the label "password:" so that it is never a consent form's token.
Pages carry authgate.http.pages' headers: never cached or framed, no Referer, forms post to this origin.
"""

from __future__ import annotations

import hmac
import html
import secrets
from string import Template

from authgate.errors import ApiError
from authgate.http.pages import head
from authgate.http.pages.headers import page_headers
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction.binding import binding_cookie, binding_from, csrf_token, new_binding
from authgate.issuer import base_url

_PAGE = Template("""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>$title</title>
$head_links$script
</head>
<body>
<main>
<h1>$title</h1>
$body
</main>
</body>
</html>
""")


def form_fields(request: Request) -> dict[str, str]:
    """The posted fields, each once, after the CSRF check (a token of this browser's binding and the page's nonce)."""
    if request.content_type != "application/x-www-form-urlencoded":
        raise ApiError("invalid_request", "The form must be posted as application/x-www-form-urlencoded.")
    fields: dict[str, str] = {}
    for name, value in request.form():
        if name in fields:
            raise ApiError("invalid_request", f"The {name} field is repeated.")
        fields[name] = value
    binding = binding_from(request)
    expected = csrf_token(binding, "password:" + fields.get("nonce", "")) if binding else ""
    if not expected or not hmac.compare_digest(fields.get("csrf", "").encode("utf-8", "surrogateescape"),
                                               expected.encode("ascii")):
        raise ApiError("invalid_request", "The form has expired or was altered. Open it again.",
                       internal="CSRF token does not match this browser")
    return fields


def csrf_fields(request: Request) -> tuple[str, str | None]:
    """(the hidden nonce and csrf inputs, Set-Cookie for a new binding or None)."""
    inputs, _token, cookie = csrf_token_fields(request)
    return inputs, cookie


def csrf_token_fields(request: Request) -> tuple[str, str, str | None]:
    """(the hidden nonce and csrf inputs, the csrf token they carry, Set-Cookie for a new binding or None)."""
    binding = binding_from(request)
    cookie = None
    if binding is None:
        binding = new_binding()
        cookie = binding_cookie(binding, base_url(request))
    nonce = secrets.token_urlsafe(16)
    token = csrf_token(binding, "password:" + nonce)
    return (f'<input type="hidden" name="nonce" value="{nonce}">\n'
            f'<input type="hidden" name="csrf" value="{html.escape(token)}">'), token, cookie


def page(title: str, body: str, cookie: str | None = None, redirect_origin: str = "",
         script_tag: str = "") -> Response:
    """A page of `body` whose forms post here (and, given `redirect_origin`, lead on to the client's redirect);
    `script_tag` is the passkey pages' one script (http.pages.script), which their CSP then allows."""
    response = Response(200, _PAGE.substitute(title=html.escape(title), head_links=head.links(), body=body,
                                              script="\n" + script_tag if script_tag else ""),
                        page_headers(form_action=["'self'", redirect_origin], script=bool(script_tag)))
    if cookie:
        response.multi_headers["Set-Cookie"] = [cookie]
    return response
