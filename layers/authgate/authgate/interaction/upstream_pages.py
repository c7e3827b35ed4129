"""The pages of an upstream sign-in (docs/federation.md, "What the person sees"): on the way to the identity
provider, on the way back to the flow's page, and the page that links an account the person already has.

On the way there: a page that goes on to the IdP at once (a meta refresh, and a link where it does not). A 303
from the sign-in form's POST would be bound by that form's CSP form-action, which names this origin and the
client's alone. On the way back: a form that posts the flow's own state and the step's ticket to the flow's page,
submitted at once by the pages' one script (a button where scripts do not run): the IdP's answer arrived as a
cross-site request, which carries neither the browser binding (SameSite=Strict) nor, for a POST, the sign-in
session; the flow's page, posted from here, gets both. Its CSP lets it lead on to the client's redirect origin.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from authgate.http.pages import messages as page_messages
from authgate.http.pages import script
from authgate.http.pages.assets import depth_of
from authgate.interaction import steps
from authgate.interaction.pages import page
from authgate.issuer import base_url

if TYPE_CHECKING:
    from collections.abc import Sequence

    from authgate.http.request import Request
    from authgate.http.response import Response
    from authgate.interaction.handoff import HandOff

_ONWARD = """<p>Continuing to <strong>{label}</strong> to sign in.</p>
<p><a href="{url}">Continue to {label}</a></p>"""
_BACK = """<p>Signed in with your identity provider. Continuing&hellip;</p>
<form id="continue-form" method="post" action="{action}">
{hidden}
<div class="actions">
<button type="submit">Continue</button>
</div>
</form>"""
_LINK = """<p>An account here already uses the email address <strong>{email}</strong>. To sign in with
<strong>{label}</strong>, link it to that account: sign in to the account once, with its password or one of its
passkeys. After that, {label} is enough.</p>
{message}
<form method="post" action="{action}" autocomplete="on">
{hidden}
<label for="username">Username or email of your account</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false"
required autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions">
<button type="submit">Link and continue</button>
{passkey}
</div>
</form>"""
_PASSKEY = ('<button type="submit" name="use" value="passkey" formnovalidate class="secondary">Use a passkey '
            "instead</button>")
LINK_TITLE = "Link your account"


def onward(label: str, url: str, cookie: str) -> Response:
    """The page that goes on to the IdP's sign-in at `url` (with the upstream cookie's Set-Cookie)."""
    e = html.escape
    return page(f"Sign in with {label}", _ONWARD.format(label=e(label), url=e(url)), cookie, refresh=url)


def back_to_flow(request: Request, action: str, fields: Sequence[tuple[str, str]], ticket: str,
                 leads_to: str) -> Response:
    """The form that takes the IdP's checked answer (`ticket`, field `upstream_ticket`) to the flow's page `action`
    with its `fields`; served at the callback's route, wherever that is below the issuer."""
    target = f"{base_url(request)}/oauth/{action}"
    depth = depth_of(request.resource)
    body = _BACK.format(action=html.escape(target), hidden=steps.hidden(fields, [("upstream_ticket", ticket)]))
    return page("Signing you in", body, redirect_origin=leads_to, script_tag=script.tag(depth), depth=depth)


def link_page(handoff: HandOff, *, ticket: str, email: str, label: str, message: str = "",
              passkeys: bool = False) -> Response:
    """The page that asks the person to prove the account that claims their email (never named here), posting back
    to the flow's page as step `link` with the link ticket."""
    back = handoff.back
    body = _LINK.format(email=html.escape(email), label=html.escape(label), message=page_messages.alert(message),
                        action=html.escape(back.action),
                        hidden=steps.hidden(back.state(steps.LINK), [("link_ticket", ticket)]),
                        passkey=_PASSKEY if passkeys else "")
    return page(LINK_TITLE, body, redirect_origin=back.leads_to)
