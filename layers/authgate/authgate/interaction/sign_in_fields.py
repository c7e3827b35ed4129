"""The sign-in fields of every flow's form (templates/sign_in_fields.html): the organisation when the hand-off names
no tenant, the username (or the person the request names already), the password, and a one-time code beside it
where the hand-off asks for one (interaction.password_step reads what they post); a person signed in already in
this browser sees who instead. And the approve/deny decision (templates/decision.html), with "Approve with a
passkey" where the flow offers the interaction's passkey step. Every value is HTML-escaped.
"""

from __future__ import annotations

import html
import os
from string import Template
from typing import TYPE_CHECKING

from authgate.assurance import MFA
from authgate.caches import cached
from authgate.interaction.second_factor import required

if TYPE_CHECKING:
    from authgate.interaction.handoff import HandOff

# open(), not importlib.resources: its import lengthens a cold start (docs/decisions.md).
DIRECTORY = os.path.join(os.path.dirname(__file__), "templates")

_ORGANISATION = Template('<label for="tenant">Organisation</label>\n'
                         '<p class="fine" id="tenant-help">$help</p>\n'
                         '<input id="tenant" name="tenant" type="text" autocomplete="organization" autocapitalize="none" '
                         'spellcheck="false" aria-describedby="tenant-help" value="$value">')
_USERNAME = Template('<label for="username">$label</label>\n'
                     '<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" '
                     'spellcheck="false" required value="$value"$focus>')
_NAMED = Template("<p>Signing in as <strong>$username</strong>.</p>")
_SIGNED_IN = Template('<p class="signed-in">Signed in as <strong>$username</strong>.</p>')
# A request that needs a second factor (interaction.second_factor.required): its code, optional, in the same POST.
_CODE_OFFERED = ('\n<label for="code">Code from your authenticator app (optional)</label>\n'
                 '<p class="fine" id="code-help">This application asks for a second factor. Enter the code now, or one '
                 'of your recovery codes; leave it empty to be asked after your password, or to use a passkey.</p>\n'
                 '<input id="code" name="code" type="text" inputmode="text" autocomplete="one-time-code" '
                 'autocapitalize="none" spellcheck="false" maxlength="64" aria-describedby="code-help">')
# A sign-in at mfa in one form (the approval page): the code is part of it.
_CODE_REQUIRED = ('\n<label for="code">One-time code or recovery code</label>\n'
                  '<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" '
                  'autocapitalize="none" spellcheck="false" maxlength="64" required>')
_PASSKEY = ('<button type="submit" name="decision" value="passkey" formnovalidate class="secondary">'
            "Approve with a passkey</button>")


@cached(maxsize=4)
def _template(name: str) -> Template:
    with open(os.path.join(DIRECTORY, name), encoding="utf-8") as f:
        return Template(f.read().rstrip("\n"))


def fields(handoff: HandOff, *, username: str = "", organisation: str = "", signed_in_as: str = "") -> str:
    """The sign-in fields for `handoff` (`username`, `organisation`: as posted, or the login hint), focus on the first
    one to fill; the signed-in person's name instead when `signed_in_as`."""
    e = html.escape
    if signed_in_as:
        return _SIGNED_IN.substitute(username=e(signed_in_as))
    if handoff.username:
        named = _NAMED.substitute(username=e(handoff.username))
    else:
        named = _USERNAME.substitute(label=e(handoff.words.username_label), value=e(username),
                                     focus="" if username else " autofocus")
    if handoff.code == "required":
        code = _CODE_REQUIRED
    else:
        code = _CODE_OFFERED if handoff.code == "offered" and required(handoff, handoff.tenant)[0] == MFA else ""
    organisation_field = "" if handoff.tenant.tenant_id else _ORGANISATION.substitute(
        help=handoff.words.organisation_help, value=e(organisation))
    return _template("sign_in_fields.html").substitute(
        organisation=organisation_field, username=named, code=code,
        password_focus=" autofocus" if handoff.username or username else "").lstrip("\n")


def decision(*, passkey: bool = False) -> str:
    """Approve and Deny (Deny needs no sign-in: formnovalidate), and "Approve with a passkey" when `passkey`."""
    return _template("decision.html").substitute(passkey=_PASSKEY if passkey else "")
