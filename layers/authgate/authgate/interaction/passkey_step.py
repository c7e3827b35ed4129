"""The `passkey` step: a passkey alone signs the person in (WebAuthn Level 3 7.2; docs/strong-authentication.md).

The sign-in form's "Approve with a passkey" (where the issuer's host can be a relying party) shows the ceremony's
page (`page`): options for navigator.credentials.get with no allowed credential (a discoverable credential names
its user, no username is typed), the challenge bound to this browser and the hand-off's tenant
(interaction.passkey_sign_in). Its answer (`signed_in`) spends the challenge; the passkey must be of that tenant (or
any, for a person who names none yet), verified with user verification, its user still standing. The sign-in is
then `acr` mfa with `amr` hwk or swk, user and mfa, and it ends as every step ends (interaction.outcome).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from authgate.assurance import MFA
from authgate.audit import person
from authgate.http.response import Response
from authgate.interaction import outcome, passkey_page, passkey_sign_in, steps
from authgate.interaction.handoff import Again, Authentication
from authgate.interaction.messages import PASSKEY_REFUSED

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.interaction.handoff import HandOff


def page(request: Request, handoff: HandOff) -> Response | Again:
    """The ceremony's page, posting back to the flow's `passkey` step; Again when this issuer cannot use passkeys or
    the browser has no binding cookie."""
    options = passkey_sign_in.discoverable_options(request, handoff.tenant.tenant_id)
    if options is None:
        return Again(PASSKEY_REFUSED)
    back = handoff.back
    return passkey_page.render(
        title=back.voice.passkey_title, options=options, ceremony="get", action=back.action,
        fields=steps.hidden(back.state(steps.PASSKEY)),
        intro=f"<p>Approve {back.voice.approved} with a passkey of this organisation: your browser or device will ask "
              "you to unlock it (a fingerprint, your face or a PIN).</p>",
        button="Use a passkey", form_action=back.leads_to)


def signed_in(request: Request, handoff: HandOff, fields: Mapping[str, str]) -> Authentication | Again | Response:
    """The ceremony's answer: the sign-in it proves, at mfa, ended as every step ends; Again when it does not hold."""
    signed = passkey_sign_in.verified(request, handoff.tenant.tenant_id, fields.get("credential", ""))
    if signed is None:
        handoff.back.log("passkey_refused")
        person.refused(handoff.tenant.tenant_id, "", "invalid", method="passkey", client_id=handoff.client_id)
        return Again(PASSKEY_REFUSED)
    result, tenant_id, amr = signed
    return outcome.finish(request, handoff, tenant_id, result, acr=MFA, amr=amr)
