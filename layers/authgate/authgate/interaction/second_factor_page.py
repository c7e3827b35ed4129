"""The second-factor step's pages: a code to enter or a TOTP enrolment (its QR code and key), and the recovery codes
of a new enrolment, shown once (docs/strong-authentication.md). What the step asks and how its POST is judged is
interaction.second_factor.
"""

from __future__ import annotations

import html
from string import Template
from urllib.parse import urlsplit

from authgate.http.pages import messages
from authgate.http.response import Response
from authgate.interaction import enrolment, pages
from authgate.interaction.second_factor import Kind, step_ticket
from authgate.sessions.model import Session
from authgate.stores.passkeys import PasskeyStore
from authgate.users import totp


def page(*, kind: Kind, session: Session, blob: str, csrf: str, client_name: str, redirect_origin: str,
         issuer: str, approved: bool, message: str = "", secret: str | None = None,
         passkeys: bool = False, held: bool | None = None, remembered: bool | None = None) -> Response:
    """The step's page; an enrolment starts (or, shown again, keeps) a pending TOTP secret; `passkeys` (the
    issuer can be a relying party) offers the user's passkeys, if they have any (`held`: as the user's item
    counted them; None: one Query), instead of a code; `remembered`
    (the remembered consent the page's request read) rides in the ticket, so the POST need not read it again."""
    if kind == "enrol" and secret is None:
        secret = enrolment.started(session.tenant_id, session.username)
    ticket = step_ticket(kind=kind, session=session, csrf=csrf, approved=approved, secret=secret,
                         remembered=remembered)
    e = html.escape
    title, intro = explained(kind=kind, session=session, issuer=issuer, secret=secret)
    offer = kind == "code" and passkeys and PasskeyStore().held(session.tenant_id, session.username, held)
    body = _STEP.substitute(intro=intro, client_name=e(client_name), request_blob=e(blob), csrf=e(csrf),
                            ticket=e(ticket), passkey=_USE_PASSKEY if offer else "",
                            message=messages.alert(message))
    return pages.page(title, body, redirect_origin=redirect_origin)


def explained(*, kind: Kind, session: Session, issuer: str, secret: str | None) -> tuple[str, str]:
    """(title, the HTML saying what to enter): a code, or an enrolment's QR code (RFC 6238) and its key in text."""
    if kind == "enrol" and secret is not None:
        uri = totp.provisioning_uri(secret, account=session.username, issuer=urlsplit(issuer).hostname or "authgate")
        grouped = " ".join(secret[i:i + 4] for i in range(0, len(secret), 4))
        return "Set up a second factor", _ENROL.substitute(svg=totp.qr_svg(uri), secret=html.escape(grouped))
    return "Second factor", _CODE


def recovery_codes_page(*, codes: tuple[str, ...], blob: str, csrf: str, approved: bool, client_name: str,
                        redirect_origin: str) -> Response:
    """The ten recovery codes of a new enrolment, shown once; the form continues to the client (the consent-only
    form of the session, with the decision already made when it was)."""
    e = html.escape
    decision = '<input type="hidden" name="decision" value="approve">' if approved else ""
    body = _RECOVERY.substitute(shown=recovery_list(codes), client_name=e(client_name), request_blob=e(blob), csrf=e(csrf),
                                decision=decision)
    return pages.page("Your recovery codes", body, redirect_origin=redirect_origin)


def recovery_list(codes: tuple[str, ...]) -> str:
    """The HTML showing a new enrolment's recovery codes, once, and what they are for."""
    return _CODES_SHOWN.substitute(codes="\n".join(f"<li><code>{html.escape(c)}</code></li>" for c in codes))


_CODE = """<p>Enter the six-digit code from your authenticator app, or one of your recovery codes.</p>"""

_ENROL = Template("""<p>Your organisation requires a second factor. Scan this QR code with an authenticator app,
or type the key below into it, then enter the six-digit code it shows.</p>
<figure class="qr">$svg</figure>
<p>Key: <code class="totp-secret">$secret</code></p>""")

_STEP = Template("""<p>To continue to <strong>$client_name</strong>, confirm it is you.</p>
$intro
$message
<form method="post" action="authorize" autocomplete="off">
<input type="hidden" name="request_blob" value="$request_blob">
<input type="hidden" name="csrf" value="$csrf">
<input type="hidden" name="factor_ticket" value="$ticket">
<label for="code">Code</label>
<input id="code" name="code" type="text" inputmode="text" autocomplete="one-time-code" maxlength="64" required autofocus>
<div class="actions">
<button type="submit">Continue</button>
$passkey
</div>
</form>""")

_USE_PASSKEY = ('<button type="submit" name="use" value="passkey" formnovalidate class="secondary">'
                "Use a passkey instead</button>")

_CODES_SHOWN = Template("""<p>Your second factor is set up. Keep these ten recovery codes somewhere safe: each signs you in once if
you lose your authenticator app. They are shown only now.</p>
<ul class="recovery-codes">
$codes
</ul>""")

_RECOVERY = Template("""$shown
<form method="post" action="authorize">
<input type="hidden" name="request_blob" value="$request_blob">
<input type="hidden" name="csrf" value="$csrf">
$decision
<div class="actions">
<button type="submit">Continue to $client_name</button>
</div>
</form>""")
