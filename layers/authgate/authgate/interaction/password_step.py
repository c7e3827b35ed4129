"""The `password` step: the sign-in form's username (or email), its organisation when the hand-off names no tenant,
the password, and a code typed beside it (RFC 6749 10.10; docs/users.md). An email typed with no password whose
domain one of the tenant's identity providers claims goes there instead (home-realm discovery,
interaction.upstream_start.discovered); any other empty password is asked for, as always.

Which account the form names is interaction.sign_in.account_of, and the password (with the code, in one attempt)
goes through every throttle of a sign-in (interaction.sign_in.sign_in): one answer whichever part was wrong, in the
flow's words (interaction.messages.Words). A code is read where the hand-off offers one and the request needs
`mfa` (interaction.second_factor.required), or where it requires one (the approval page: mfa in one form). After
an operator's password reset the right (temporary) password leads to the forced change
(interaction.password_change) unless the flow changes it itself; otherwise the step ends as every step ends
(interaction.outcome: the hinted person, the flow's admission, the session, a second factor still asked).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from authgate import clock
from authgate.assurance import MFA, OTP, PASSWORD_AND_CODE_AMR, PWD, assurance_of
from authgate.audit import person
from authgate.http.response import Response
from authgate.interaction import outcome, password_change, second_factor, upstream_start
from authgate.interaction.handoff import Again, Authentication
from authgate.interaction.sign_in import account_of, sign_in
from authgate.stores.user_factors import UserFactorStore

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.interaction.handoff import HandOff

# The longest username and organisation kept (an email address is at most 320 characters, RFC 5321 4.5.3.1).
MAX_USERNAME = 320
MAX_TENANT = 100


def signed_in(request: Request, handoff: HandOff, fields: Mapping[str, str]) -> Authentication | Again | Response:
    """The posted sign-in form's outcome: see the module's docstring. The form's own decision (Approve or Deny) is
    the flow's, made before."""
    words = handoff.words
    username = handoff.username or fields.get("username", "").strip()[:MAX_USERNAME]
    password = fields.get("password", "")
    if not password:
        discovered = upstream_start.discovered(request, handoff, fields)
        if discovered is not None:
            return discovered
    if not username or not password:
        return Again(words.missing)
    client_tenant = handoff.tenant.tenant_id
    typed = "" if client_tenant else fields.get("tenant", "").strip()[:MAX_TENANT]
    tenant_id, username = account_of(client_tenant, typed, username)
    code = fields.get("code", "").strip()[:second_factor.MAX_CODE]
    if handoff.code == "required":
        return _with_required_code(request, handoff, tenant_id, username, password, code)
    if handoff.code == "none" or second_factor.required(handoff, handoff.tenant)[0] != MFA:
        code = ""
    result = sign_in(tenant_id, username, password, request.source_ip, code)
    if not result.ok:
        handoff.back.log(f"login_{result.reason}")
        # One message whichever was wrong: the organisation, the account, the password or the code (docs/users.md).
        return Again(words.wrong_with_code if code else words.wrong)
    if result.must_change_password:
        if handoff.change == "resume":
            return Authentication(tenant_id=tenant_id, user_id=result.user_id, username=result.subject, acr="",
                                  amr=(), auth_time=clock.seconds(), generation=result.generation, change_due=True)
        return password_change.form(handoff, password_change.issue(tenant_id, result.subject))
    if not code:
        return outcome.finish(request, handoff, tenant_id, result)
    # A code given in the same POST: the session opens at mfa (RFC 8176 2: pwd, otp, mfa), no step follows.
    assurance = assurance_of(frozenset({PWD, OTP}), 0)  # only its acr and amr: the session's time is its own
    return outcome.finish(request, handoff, tenant_id, result, acr=assurance.acr, amr=assurance.amr)


def _with_required_code(request: Request, handoff: HandOff, tenant_id: str, username: str, password: str,
                        code: str) -> Authentication | Again:
    """A sign-in at mfa in one form (the approval page): the password and the code in ONE attempt (sign_in: its
    failure counters, the account's throttle and the second factor's), for the person the hand-off names; a person
    who holds no second factor is told so (words.no_factor) once their password is right. No session is opened
    (the approval records the sign-in on its own)."""
    words = handoff.words
    factors = UserFactorStore().factors(tenant_id, username)
    if factors is None or not (factors.totp or factors.recovery_codes_left):
        result = sign_in(tenant_id, username, password, request.source_ip)
        named = result.ok and handoff.hinted_sub in (None, result.user_id)
        return Again(words.no_factor if named else words.wrong)
    if not code:
        return Again(words.wrong_with_code)
    result = sign_in(tenant_id, username, password, request.source_ip, code)
    if not result.ok or handoff.hinted_sub not in (None, result.user_id):
        return Again(words.wrong_with_code)
    person.signed_in(tenant_id, result.user_id, result.subject, MFA, PASSWORD_AND_CODE_AMR, handoff.client_id,
                     method="password_and_code")
    return Authentication(tenant_id=tenant_id, user_id=result.user_id, username=result.subject, acr=MFA,
                          amr=PASSWORD_AND_CODE_AMR, auth_time=clock.seconds(), generation=result.generation,
                          notes=handoff.back.notes)
