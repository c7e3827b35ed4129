"""A person's passkeys on the account page: the list (name, created, last used), add one, remove one
(WebAuthn Level 3 7.1 registration; docs/strong-authentication.md).

As every action of the account page, these need its own sign-in, made within the last 10 minutes
with the password (account.page.COOKIE_TTL), and its CSRF fields; a person who holds a second factor
proves it as well (account.factor_proof: a code, or one of their passkeys), so a stolen
password adds no passkey and removes none. Removing the last factor is allowed with that proof, as
removing the one-time code is: the account is back to a password alone. Adding one issues a registration
challenge (stores.webauthn_challenges: single use, 5 minutes) bound to this browser's binding cookie
and to the account, and shows the ceremony's page (passkey_page); the posted response spends the
challenge, is verified with user verification required, and becomes a passkey of the account
(PasskeysTable). The relying party is the issuer's host: a stack served on an IP address says so and
offers none.
"""

from __future__ import annotations

import html
import time
from string import Template

from authgate import clock
from authgate.account import factor_proof
from authgate.account.signed_in import ACCOUNT
from authgate.audit import person
from authgate.http.pages import messages
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction import passkey_page
from authgate.interaction.binding import binding_from
from authgate.interaction.pages import csrf_fields
from authgate.single_use.webauthn_challenges import ChallengeRefused
from authgate.stores.passkeys import PasskeyStore
from authgate.stores.users import UserStore
from authgate.stores.webauthn_challenges import WebAuthnChallengeStore
from authgate.users.errors import PasskeyRefused

ACTIONS = ("passkey_start", "passkey_finish", "passkey_remove")
MAX_NAME = 64
NO_RP = ("Passkeys need this service on a host name: browsers refuse an IP address as a passkey's relying "
         "party (a local stack: serve it as http://localhost).")
NOT_ADDED = "The passkey was not added: the browser's answer did not verify, or the page had expired. Try again."

_SECTION = Template("""<h2>Passkeys</h2>
$items
<form method="post" action="account">
<input type="hidden" name="action" value="passkey_start">
$csrf
<label for="passkey_name">Name of a new passkey</label>
<input id="passkey_name" name="name" type="text" maxlength="64" value="Passkey">
$controls
</form>""")
_ITEM = Template("""<li><strong class="passkey-name">$name</strong> · created $created · last used $used
<form method="post" action="account">
<input type="hidden" name="action" value="passkey_remove">
<input type="hidden" name="credential_id" value="$credential_id">
$csrf
$controls
</form></li>""")


def section(request: Request, factors: factor_proof.Held, csrf: str) -> str:
    """The account page's passkey section: the list and the form adding one (or why passkeys are unavailable),
    each form with what proves a person who holds a factor (factor_proof)."""
    if passkey_page.relying_party(request) is None:
        return f"<h2>Passkeys</h2>\n<p>{html.escape(NO_RP)}</p>"
    passkeys = factors.passkeys
    items = "\n".join(_ITEM.substitute(name=html.escape(p.name), created=_day(p.created_at),
                                       used=_day(p.last_used_at) if p.last_used_at else "never",
                                       credential_id=html.escape(p.credential_id), csrf=csrf,
                                       controls=factor_proof.controls(factors, field_id=f"code_{i}", button="Remove",
                                                                      css="secondary"))
                      for i, p in enumerate(passkeys))
    listed = f'<ul class="passkeys">\n{items}\n</ul>' if passkeys else "<p>No passkey is set up.</p>"
    return _SECTION.substitute(items=listed, csrf=csrf, controls=factor_proof.controls(
        factors, field_id="code_new", button="Add a passkey"))


def act(request: Request, tenant_id: str, username: str, fields: dict[str, str], *, user_id: str = "") -> Response | str:
    """One of ACTIONS: a ceremony's page (a passkey proving the person, the registration), or the message for
    the account page; each change recorded for the person `user_id`."""
    party = passkey_page.relying_party(request)
    binding = binding_from(request)
    if party is None or binding is None:
        return NO_RP if party is None else NOT_ADDED
    rp_id, origin = party
    action = fields.get("action")
    if action in ("passkey_start", "passkey_remove"):
        refused = factor_proof.gate(request, tenant_id, username, fields, factor_proof.held(tenant_id, username))
        if refused is not None:
            return refused
    if action == "passkey_remove":
        removed = PasskeyStore().remove(tenant_id, username, fields.get("credential_id", "")[:1400])
        if removed:
            person.acted("passkey.removed", tenant_id, user_id, username, passkey_id=fields["credential_id"][:1400])
        return messages.Done("The passkey was removed.") if removed else "No such passkey: it was removed already."
    name = " ".join(fields.get("name", "").split())[:MAX_NAME] or "Passkey"
    if action == "passkey_start":
        return _ceremony(request, tenant_id, username, name, rp_id, binding)
    from authgate.users import passkey_ceremonies

    try:
        credential = passkey_page.credential_of(fields.get("credential", ""))
        challenge = WebAuthnChallengeStore().consume(passkey_ceremonies.challenge_of(credential), "register",
                                                     binding)
        if (challenge.tenant_id, challenge.username) != (tenant_id, username):
            raise PasskeyRefused("a challenge of another account")
        passkey = passkey_ceremonies.verify_registration(
            credential=credential, challenge=challenge.challenge, rp_id=rp_id, origin=origin, tenant_id=tenant_id,
            username=username, name=name, now=clock.seconds())
        PasskeyStore().add(passkey)
    except (PasskeyRefused, ChallengeRefused):
        return NOT_ADDED
    person.acted("passkey.added", tenant_id, user_id, username, name=name, aaguid=passkey.aaguid,
                 passkey_id=passkey.credential_id)
    return messages.Done(f"The passkey {name} was added: you can sign in with it.")


def _ceremony(request: Request, tenant_id: str, username: str, name: str, rp_id: str, binding: str) -> Response:
    """The registration page: options for navigator.credentials.create (WebAuthn 5.4)."""
    from authgate.users import passkey_ceremonies

    user = UserStore().get(tenant_id, username)
    challenge = WebAuthnChallengeStore().issue("register", binding, tenant_id, username)
    existing = tuple(p.credential_id for p in PasskeyStore().of_user(tenant_id, username))
    options = passkey_ceremonies.registration_options(
        rp_id=rp_id, rp_name="authgate", username=username, challenge=challenge, existing=existing,
        user_handle=(user.user_id if user and user.user_id else f"{tenant_id}#{username}").encode())
    csrf, _cookie = csrf_fields(request, ACCOUNT)
    fields = (f'<input type="hidden" name="action" value="passkey_finish">\n{csrf}\n'
              f'<input type="hidden" name="name" value="{html.escape(name)}">')
    return passkey_page.render(
        title="Add a passkey", options=options, ceremony="create", action="account", fields=fields,
        intro=f"<p>Your browser or device will make a passkey named <strong>{html.escape(name)}</strong> for this "
              "account and ask you to unlock it (a fingerprint, your face or a PIN).</p>",
        button="Create the passkey", after='<p><a href="account">Back to your account</a></p>')


def _day(epoch: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(epoch))
