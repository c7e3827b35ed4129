"""What the pages of the flows share (the account page, the device verification page, the approval page, the
interaction's own pages): the page, its CSRF fields naming the form's step, the posted form.

CSRF as for the consent form (interaction.binding): a token bound to this browser's binding cookie and
the page's nonce, under the label "password:" so that it is never a consent form's token. The nonce
names the step of the form it was rendered for (`<step>.<random>`, interaction.steps), so the CSRF token
seals the step: a POST is dispatched on `step_of` its fields, which nothing in the browser can change.
Pages carry authgate.http.pages' headers: never cached or framed, no Referer, forms post to this origin.
"""

from __future__ import annotations

import hmac
import html
import secrets
from collections.abc import Mapping
from string import Template

from authgate.errors import ApiError
from authgate.http.pages import head
from authgate.http.pages.headers import page_headers
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction import steps
from authgate.interaction.binding import binding_cookie, binding_from, csrf_token, new_binding
from authgate.interaction.steps import Handler
from authgate.issuer import base_url

_PAGE = Template("""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">$refresh
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


STALE = "The form has expired or was altered. Open it again."


def form_fields(request: Request, *steps: str) -> dict[str, str]:
    """The posted fields, each once, after the CSRF check (a token of this browser's binding and the page's nonce);
    with `steps`, the form must be of one of them (its nonce names it), else it is stale."""
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
        raise ApiError("invalid_request", STALE, internal="CSRF token does not match this browser")
    if steps and step_of(fields) not in steps:
        raise ApiError("invalid_request", STALE, internal=f"a form of step {step_of(fields)[:32]!r}")
    return fields


def posted_step(request: Request, table: Mapping[str, Handler],
                carries: Mapping[str, tuple[str, ...]] | None = None) -> tuple[dict[str, str], Handler]:
    """The posted fields (form_fields) and the handler of the step the form's nonce names in a flow's `table`
    (interaction.steps.handler); a form of a step the table lacks, or carrying another step's field, is stale."""
    fields = form_fields(request)
    try:
        return fields, steps.handler(table, step_of(fields), fields, carries)
    except steps.Stale as exc:
        raise ApiError("invalid_request", STALE, internal=str(exc)) from None


def step_of(fields: dict[str, str]) -> str:
    """The step a form's nonce names (its CSRF token, checked by form_fields, seals it); "" for none."""
    step, dot, _random = fields.get("nonce", "").partition(".")
    return step if dot else ""


def csrf_fields(request: Request, step: str) -> tuple[str, str | None]:
    """(the hidden nonce and csrf inputs of a form of `step`, Set-Cookie for a new binding or None)."""
    state, cookie = csrf_state(request, step)
    return "\n".join(f'<input type="hidden" name="{name}" value="{html.escape(value)}">' for name, value in state), cookie


def csrf_state(request: Request, step: str) -> tuple[list[tuple[str, str]], str | None]:
    """([("nonce", ...), ("csrf", ...)] of a form of `step`, Set-Cookie for a new binding or None)."""
    binding = binding_from(request)
    cookie = None
    if binding is None:
        binding = new_binding()
        cookie = binding_cookie(binding, base_url(request))
    nonce = f"{step}.{secrets.token_urlsafe(16)}"
    return [("nonce", nonce), ("csrf", csrf_token(binding, "password:" + nonce))], cookie


def page(title: str, body: str, cookie: str | None = None, redirect_origin: str = "",
         script_tag: str = "", *, depth: int = 1, refresh: str = "") -> Response:
    """A page of `body` whose forms post here (and, given `redirect_origin`, lead on to the client's redirect);
    `script_tag` is the pages' one script (http.pages.script), which their CSP then allows; `depth`: how many levels
    down the page's route is (http.pages.assets); `refresh`: a URL the browser goes on to at once (a meta refresh:
    a navigation of its own, which no form's CSP form-action bounds)."""
    meta = f'\n<meta http-equiv="refresh" content="0;url={html.escape(refresh)}">' if refresh else ""
    response = Response(200, _PAGE.substitute(title=html.escape(title), head_links=head.links(depth), body=body,
                                              script="\n" + script_tag if script_tag else "", refresh=meta),
                        page_headers(form_action=["'self'", redirect_origin], script=bool(script_tag)))
    if cookie:
        response.multi_headers["Set-Cookie"] = [cookie]
    return response
