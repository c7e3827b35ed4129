"""The second-factor step's page, the one every flow shows (templates/second_factor.html; docs/strong-authentication.md):
a code to enter, or a TOTP enrolment (its QR code and key), with "Use a passkey instead" for a person who holds one;
and the recovery codes of a new enrolment, shown once. What the step asks and how its POST is judged is
interaction.second_factor; the page posts back to the flow's form (interaction.handoff.Back) with the step's ticket.
"""

from __future__ import annotations

import html
import os
from string import Template
from typing import TYPE_CHECKING

from authgate.caches import cached
from authgate.http.pages import messages
from authgate.http.response import Response
from authgate.interaction import enrolment, pages, steps
from authgate.interaction.second_factor import Kind, step_ticket
from authgate.issuer import base_url
from authgate.stores.passkeys import PasskeyStore

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.interaction.handoff import HandOff
    from authgate.sessions.model import Session

# open(), not importlib.resources: its import lengthens a cold start (docs/decisions.md).
TEMPLATE_FILE = os.path.join(os.path.dirname(__file__), "templates", "second_factor.html")


@cached
def _template() -> Template:
    with open(TEMPLATE_FILE, encoding="utf-8") as f:
        return Template(f.read())


def page(request: Request, handoff: HandOff, *, kind: Kind, session: Session, passkeys: bool, message: str = "",
         secret: str | None = None, held: bool | None = None) -> Response:
    """The step's page; an enrolment starts (or, shown again, keeps) a pending TOTP secret; `passkeys` (the issuer
    can be a relying party) offers the user's passkeys, if they have any (`held`: as the user's item counted them;
    None: one Query), instead of a code. The ticket is bound to the flow's CSRF token and carries its notes."""
    if kind == "enrol" and secret is None:
        secret = enrolment.started(session.tenant_id, session.username)
    back = handoff.back
    state = back.state(steps.FACTOR)
    ticket = step_ticket(kind=kind, session=session, csrf=steps.csrf_of(state), secret=secret, notes=back.notes)
    title, intro = explained(kind=kind, session=session, issuer=base_url(request), secret=secret)
    offer = kind == "code" and passkeys and PasskeyStore().held(session.tenant_id, session.username, held)
    body = _template().substitute(lead=back.voice.factor_lead, intro=intro, message=messages.alert(message),
                                  action=back.action, hidden=steps.hidden(state, [("factor_ticket", ticket)]),
                                  button=html.escape(back.voice.button), passkey=_USE_PASSKEY if offer else "")
    return pages.page(title, body.rstrip("\n"), redirect_origin=back.leads_to)


def explained(*, kind: Kind, session: Session, issuer: str, secret: str | None) -> tuple[str, str]:
    """(title, the HTML saying what to enter): a code, or an enrolment's QR code (RFC 6238) and its key in text."""
    if kind == "enrol" and secret is not None:
        return "Set up a second factor", _ENROL.substitute(shown=enrolment.shown(secret, session.username, issuer))
    return "Second factor", _CODE


def recovery_codes_page(*, codes: tuple[str, ...], hidden: str, asker: str, action: str,
                        leads_to: str) -> Response:
    """The ten recovery codes of a new enrolment, shown once, and a form continuing to `asker` (its `hidden` fields:
    the flow's state)."""
    body = _RECOVERY.substitute(shown=recovery_list(codes), client_name=html.escape(asker), hidden=hidden,
                                action=action)
    return pages.page("Your recovery codes", body, redirect_origin=leads_to)


def recovery_list(codes: tuple[str, ...]) -> str:
    """The HTML showing a new enrolment's recovery codes, once, and what they are for."""
    return _CODES_SHOWN.substitute(codes="\n".join(f"<li><code>{html.escape(c)}</code></li>" for c in codes))


_CODE = """<p>Enter the six-digit code from your authenticator app, or one of your recovery codes.</p>"""

_ENROL = Template("""<p>Your organisation requires a second factor. Scan this QR code with an authenticator app,
or type the key below into it, then enter the six-digit code it shows.</p>
$shown""")

_USE_PASSKEY = ('<button type="submit" name="use" value="passkey" formnovalidate class="secondary">'
                "Use a passkey instead</button>")

_CODES_SHOWN = Template("""<p>Your second factor is set up. Keep these ten recovery codes somewhere safe: each signs you in once if
you lose your authenticator app. They are shown only now.</p>
<ul class="recovery-codes">
$codes
</ul>""")

_RECOVERY = Template("""$shown
<form method="post" action="$action">
$hidden
<div class="actions">
<button type="submit">Continue to $client_name</button>
</div>
</form>""")
