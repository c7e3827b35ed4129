"""The sign-in fields of every flow's form (templates/sign_in_fields.html): the organisation when the hand-off names
no tenant, the username (or the person the request names already), the password, and a one-time code beside it
where the hand-off asks for one (interaction.password_step reads what they post); a person signed in already in
this browser sees who instead. And the approve/deny decision (templates/decision.html), with "Approve with a
passkey" where the flow offers the interaction's passkey step, and a "Sign in with <IdP>" button per identity
provider the tenant offers (interaction.upstream_start). Every value is HTML-escaped.

Home-realm discovery (docs/federation.md): an email typed with no password goes to the IdP that claims its domain.
Where that can happen -- the tenant's IdPs claim domains, or the person names their organisation (a
self-registered client, the account page) -- the password is not `required` of the browser: an empty one is
posted, and the server answers as it always has when no IdP claims the domain ("enter your password").
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
    from collections.abc import Sequence

    from authgate.identity_providers.sign_in_options import SignInOption
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
# One button per identity provider the tenant offers (interaction.upstream_start): no password asked here.
_UPSTREAM = Template('<button type="submit" name="upstream" value="$idp_id" formnovalidate class="secondary">'
                     "Sign in with $label</button>")
# Which email domains an IdP signs in (home-realm discovery).
_DOMAINS = Template('\n<p class="fine single-sign-on">With an email address at $domains, leave the password empty: you '
                    "sign in with $label.</p>")


@cached(maxsize=4)
def _template(name: str) -> Template:
    with open(os.path.join(DIRECTORY, name), encoding="utf-8") as f:
        return Template(f.read().rstrip("\n"))


def fields(handoff: HandOff, *, username: str = "", organisation: str = "", signed_in_as: str = "",
           options: Sequence[SignInOption] = ()) -> str:
    """The sign-in fields for `handoff` (`username`, `organisation`: as posted, or the login hint), focus on the first
    one to fill; the signed-in person's name instead when `signed_in_as`. `options`: the tenant's IdPs, whose email
    domains the page names (home-realm discovery)."""
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
    by_domain = [o for o in options if o.domains] if not handoff.username else []
    single_sign_on = "".join(_DOMAINS.substitute(domains=e(", ".join(o.domains)), label=e(o.label)) for o in by_domain)
    discovered = bool(by_domain) or (not handoff.tenant.tenant_id and not handoff.username)
    return _template("sign_in_fields.html").substitute(
        organisation=organisation_field, username=named, code=code, single_sign_on=single_sign_on,
        required="" if discovered else " required",
        password_focus=" autofocus" if handoff.username or username else "").lstrip("\n")


def decision(*, passkey: bool = False, options: Sequence[SignInOption] = ()) -> str:
    """Approve and Deny (Deny needs no sign-in: formnovalidate), "Approve with a passkey" when `passkey`, and a
    "Sign in with <IdP>" button per option (which approves, as the passkey's does)."""
    upstream = "\n".join(_UPSTREAM.substitute(idp_id=html.escape(o.idp_id), label=html.escape(o.label))
                          for o in options)
    return _template("decision.html").substitute(
        passkey=_PASSKEY if passkey else "",
        upstream=f'<div class="actions upstream">\n{upstream}\n</div>' if upstream else "").rstrip("\n")
