"""The page of one passkey ceremony (WebAuthn Level 3 5.1.3 create, 5.1.4 get) and what the page posts back.

The page holds the ceremony's options (py_webauthn's JSON) in a data block, never run as a script,
and a form with a hidden `credential` field; the one script (/assets/passkeys.js, CSP
`script-src 'self'` on these pages only) asks the browser for the credential when the person
submits the form and posts its JSON back. The relying party is the issuer's host (users.passkeys):
a stack served on an IP address offers no passkey at all.
"""

from __future__ import annotations

import html
import json
from string import Template
from typing import Any, Literal
from urllib.parse import urlsplit

from authgate.http.pages import script
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction import pages
from authgate.issuer import base_url
from authgate.users.errors import PasskeyRefused, RelyingPartyUnusable
from authgate.users.passkeys import relying_party_id

# A registration or assertion response is a few hundred bytes to a few kilobytes (an RSA key, transports).
MAX_CREDENTIAL = 16384

_BODY = Template("""$intro
<p class="message error" role="alert" id="passkey-status" hidden></p>
<script type="application/json" id="passkey-options">$options</script>
<form method="post" action="$action" id="passkey-form" data-ceremony="$ceremony">
$fields
<input type="hidden" name="credential" value="">
<div class="actions">
<button type="submit">$button</button>
</div>
</form>
$after""")



def relying_party(request: Request) -> tuple[str, str] | None:
    """(RP id, origin) of this issuer (WebAuthn 5.1.3, 13.4.9), or None when its host is an IP address."""
    issuer = base_url(request)
    try:
        rp_id = relying_party_id(issuer)
    except RelyingPartyUnusable:
        return None
    parts = urlsplit(issuer)
    return rp_id, f"{parts.scheme}://{parts.netloc}"


def render(*, title: str, intro: str, options: str, ceremony: Literal["create", "get"], action: str, fields: str,
           button: str, form_action: str = "", after: str = "") -> Response:
    """The ceremony's page; `intro`, `fields` and `after` are HTML, already escaped."""
    # JSON in an HTML data block: "<" escaped so no value can close the element.
    body = _BODY.substitute(intro=intro, options=options.replace("<", "\\u003c"), action=action, ceremony=ceremony,
                            fields=fields, button=html.escape(button), after=after)
    return pages.page(title, body, redirect_origin=form_action, script_tag=script.tag())


def credential_of(raw: str) -> dict[str, Any]:
    """The posted credential's JSON object (WebAuthn 5.1, as passkeys.js writes it), or PasskeyRefused."""
    if not raw or len(raw) > MAX_CREDENTIAL:
        raise PasskeyRefused("no credential, or one too large")
    try:
        credential = json.loads(raw)
    except ValueError:
        raise PasskeyRefused("the credential is not JSON") from None
    if not isinstance(credential, dict):
        raise PasskeyRefused("the credential is not a JSON object")
    return credential
