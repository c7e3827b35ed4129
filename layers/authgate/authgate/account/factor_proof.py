"""What proves the person on the account page before a change of factors: a one-time code, or one of their passkeys
(WebAuthn Level 3 7.2; docs/strong-authentication.md).

While a person holds a second factor, a password alone changes none: adding or removing a one-time
code or a passkey also takes a right TOTP or recovery code (through the second factor's throttle,
stores.factor_attempts) or an assertion of one of *their* passkeys. Otherwise a stolen password would
enrol the thief's own factor and sign in at `mfa`.

A passkey's proof: the change form's "Confirm with a passkey" button (`prove=passkey`) shows an
assertion ceremony (passkey_page) allowing only the person's passkeys (WebAuthn 5.5
allowCredentials), user verification required, its challenge (stores.webauthn_challenges, purpose
`confirm`: no sign-in spends it, nor it a sign-in's) single use, 5 minutes, bound to this browser's
binding cookie and to the account. The ceremony's form posts the same change back with the
assertion (and the page's CSRF fields); the change is made only when the challenge is spent, the
passkey is the account's, the user was verified and the counter moved forward
(users.passkey_ceremonies, which refuses and logs a counter going backwards). One proof, one change.
"""

from __future__ import annotations

import html
from string import Template
from typing import NamedTuple

from authgate.account.signed_in import ACCOUNT
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction import passkey_page, passkey_sign_in, proof
from authgate.interaction.pages import csrf_fields
from authgate.stores.passkeys import PasskeyStore
from authgate.stores.user_factors import UserFactorStore
from authgate.users.passkeys import Passkey

WRONG_CODE = "The code is incorrect or was used already, or this account is temporarily locked."
ASK = ("Confirm it is you first: enter a code from your authenticator app or a recovery code, or confirm with one of "
       "your passkeys.")
PASSKEY_REFUSED = ("Your passkey did not confirm it is you: it is not one of this account's, the page expired, or "
                   "your browser's answer did not verify. Try again.")
# The fields a change form carries through the passkey's ceremony, besides its CSRF fields.
CARRIED = ("action", "name", "credential_id")
_CODE_FIELD = Template('<label for="$id">A code from your authenticator app, or a recovery code</label>\n'
                       '<input id="$id" name="code" type="text" autocomplete="one-time-code" maxlength="64" required>')
_PASSKEY = Template('<button type="submit" name="prove" value="passkey"$extra>$label</button>')


class Held(NamedTuple):
    """The second factors a person holds: a confirmed one-time code, their passkeys."""

    totp: bool
    passkeys: tuple[Passkey, ...]
    recovery_codes_left: int = 0


def held(tenant_id: str, username: str) -> Held:
    """The person's factors (one GetItem, one Query)."""
    factors = UserFactorStore().factors(tenant_id, username)
    passkeys = PasskeyStore().of_user(tenant_id, username)
    if factors is None or not factors.totp:
        return Held(False, passkeys)
    return Held(True, passkeys, factors.recovery_codes_left)


def controls(factors: Held, *, field_id: str, button: str, css: str = "") -> str:
    """The end of a change form: the code field for a person with a one-time code, and the submit buttons (a
    person with passkeys and no code confirms with a passkey; with both, either)."""
    klass = f' class="{css}"' if css else ""
    if factors.passkeys and not factors.totp:
        buttons = _PASSKEY.substitute(extra=klass, label=html.escape(button))
    else:
        buttons = f'<button type="submit"{klass}>{html.escape(button)}</button>'
    if factors.passkeys and factors.totp:
        buttons += "\n" + _PASSKEY.substitute(extra=' formnovalidate class="secondary"',
                                              label="Confirm with a passkey instead")
    field = _CODE_FIELD.substitute(id=field_id) + "\n" if factors.totp else ""
    return f'{field}<div class="actions">\n{buttons}\n</div>'


def proven(request: Request, tenant_id: str, username: str, fields: dict[str, str], factors: Held) -> bool | None:
    """Whether the posted form proves the person before a change of factors: None when they hold none (a password
    is all there is), True for an assertion of one of their passkeys answering this page's challenge or a right
    one-time or recovery code, False otherwise."""
    if not factors.totp and not factors.passkeys:
        return None
    raw = fields.get("credential", "")
    if raw:
        return bool(factors.passkeys) and proof.passkey(request, tenant_id, username, raw)
    code = fields.get("code", "").strip()
    if not factors.totp or not code:
        return False
    return proof.code(tenant_id, username, code)


def gate(request: Request, tenant_id: str, username: str, fields: dict[str, str], factors: Held) -> Response | str | None:
    """Before a change of factors: the passkey's ceremony when the form asked for it, the page's message when the
    form does not prove the person, or None when the change may go on."""
    shown = ceremony(request, tenant_id, username, fields, factors)
    if shown is not None:
        return shown
    if proven(request, tenant_id, username, fields, factors) is not False:
        return None
    if fields.get("credential"):
        return PASSKEY_REFUSED
    return WRONG_CODE if fields.get("code", "").strip() else ASK


def ceremony(request: Request, tenant_id: str, username: str, fields: dict[str, str],
             factors: Held) -> Response | None:
    """The passkey's ceremony for a change form that asked for it (`prove=passkey`), the change's fields carried;
    None when the form did not ask, the person has no passkey, or this issuer cannot use passkeys."""
    if fields.get("prove") != "passkey" or fields.get("credential") or not factors.passkeys:
        return None
    options = passkey_sign_in.own_options(request, tenant_id, username, "confirm")
    if options is None:
        return None
    csrf, _cookie = csrf_fields(request, ACCOUNT)
    carried = "\n".join(f'<input type="hidden" name="{name}" value="{html.escape(fields[name][:1400])}">'
                        for name in CARRIED if name in fields)
    return passkey_page.render(
        title="Confirm it is you", options=options, ceremony="get", action="account", fields=f"{carried}\n{csrf}",
        intro="<p>Before this change of your sign-in factors, confirm it is you with one of your passkeys: your "
              "browser or device will ask you to unlock it (a fingerprint, your face or a PIN).</p>",
        button="Use a passkey", after='<p><a href="account">Back to your account</a></p>')
