"""The password step of the sign-in form (RFC 6749 10.10; docs/users.md): the decision, the credentials (with a
one-time code typed beside them when the request needs mfa) and the forced password change."""

from __future__ import annotations

from authgate.assurance import MFA, assurance_of
from authgate.clients.model import Client
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.oauth.authorization import answers, password_change, second_factor
from authgate.oauth.authorization.consent_page import (
    MISSING_CREDENTIALS,
    MISSING_DECISION,
    WRONG_CREDENTIALS,
    WRONG_CREDENTIALS_OR_CODE,
    WRONG_ORGANISATION_CREDENTIALS_OR_CODE,
    WRONG_ORGANISATION_OR_CREDENTIALS,
    redirect_origin,
)
from authgate.oauth.authorization.request import AuthorizationRequest, single
from authgate.oauth.authorization.sign_in import account_of, open_session, sign_in
from authgate.sessions.model import Session
from authgate.stores.users import UserStore
from authgate.tenants.model import Tenant
from authgate.users.model import LoginResult
from authgate.users.passwords import MIN_PASSWORD, password_problem

STALE_FORM = "The sign-in form has expired or was altered. Start again from the application."


class ChangeAgain(Exception):
    """The forced change's form is shown again with `message` (the new password was not acceptable)."""

    def __init__(self, ticket: str, message: str) -> None:
        super().__init__(message)
        self.ticket, self.message = ticket, message


class ShowAgain(Exception):
    """The form is shown again with `message`: no decision, no credentials, or wrong ones."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def decided(fields: answers.Fields, auth: AuthorizationRequest) -> None:
    """The person approved; deny is access_denied, no decision shows the form again."""
    decision = single(fields, "decision")
    if decision == "deny":
        answers.log("denied", auth)
        raise ApiError("access_denied", "The user denied the request.")
    if decision != "approve":
        raise ShowAgain(MISSING_DECISION)


def code_typed(fields: answers.Fields, auth: AuthorizationRequest, tenant: Tenant) -> str:
    """The one-time or recovery code typed beside the password, where the form offered the field (the request
    needs mfa: second_factor.required); empty otherwise, and then the step follows the password as before."""
    code = (single(fields, "code") or "").strip()[:second_factor.MAX_CODE]
    return code if code and second_factor.required(auth, tenant)[0] == MFA else ""


def signed_in(request: Request, client: Client, fields: answers.Fields,
              auth: AuthorizationRequest, code: str = "") -> tuple[LoginResult, str]:
    """(the sign-in, tenant id) of the person whose credentials these are (RFC 6749 10.10: sign_in's throttles),
    with `code` checked in the same attempt when one was typed.

    A self-registered client has no tenant yet (Tenant("")): the person names theirs on the form, or
    their email's login domain or the deployment's default tenant does (sign_in.account_of), and until
    the password is checked nothing depends on which tenant that is -- whether it exists, forbids the
    scopes or refuses the client -- so the answers cannot tell tenants apart."""
    username, password = single(fields, "username") or "", single(fields, "password") or ""
    typed = "" if client.tenant_id else (single(fields, "tenant") or "").strip()[:100]
    if not username or not password:
        raise ShowAgain(MISSING_CREDENTIALS)
    tenant_id, username = account_of(client.tenant_id, typed, username)
    result = sign_in(tenant_id, username, password, request.source_ip, code)
    if not result.ok:
        answers.log(f"login_{result.reason}", auth)
        # One message whichever was wrong: the organisation, the account, the password or the code (docs/users.md).
        if code:
            raise ShowAgain(WRONG_CREDENTIALS_OR_CODE if client.tenant_id else WRONG_ORGANISATION_CREDENTIALS_OR_CODE)
        raise ShowAgain(WRONG_CREDENTIALS if client.tenant_id else WRONG_ORGANISATION_OR_CREDENTIALS)
    return result, tenant_id


def password_changed(client: Client, fields: answers.Fields) -> tuple[LoginResult, str]:
    """(the sign-in, tenant id) once the new password of a forced change is set (docs/users.md): the ticket holds,
    the password is acceptable and typed twice alike, and the change is still due."""
    raw = single(fields, "change_ticket") or ""
    try:
        ticket = password_change.redeem(raw)
    except password_change.TicketInvalid as exc:
        raise ApiError("invalid_request", STALE_FORM, internal=str(exc)) from None
    if client.tenant_id and ticket.tenant_id != client.tenant_id:
        raise ApiError("invalid_request", STALE_FORM, internal="change ticket of another tenant")
    new, confirm = single(fields, "new_password") or "", single(fields, "confirm") or ""
    problem = password_problem(new, ticket.username) or ("The two passwords differ." if new != confirm else "")
    if problem:
        raise ChangeAgain(raw, problem)
    store = UserStore()
    user = store.get(ticket.tenant_id, ticket.username)
    if user is None or user.disabled or not user.must_change_password:
        raise ApiError("invalid_request", STALE_FORM, internal="no password change due")
    changed = store.change_password(ticket.tenant_id, ticket.username, new)
    return LoginResult(True, "ok", subject=ticket.username, user_id=user.user_id,
                       generation=changed.session_generation), ticket.tenant_id


def change_form(client: Client, auth: AuthorizationRequest, fields: answers.Fields, ticket: str,
                message: str = "") -> Response:
    """The forced change's form: the posted sealed request and CSRF token, unchanged, and the ticket."""
    return password_change.render(client_name=client.name or client.client_id,
                                  blob=single(fields, "request_blob") or "", csrf=single(fields, "csrf") or "",
                                  ticket=ticket, redirect_origin=redirect_origin(auth.redirect_uri),
                                  minimum=MIN_PASSWORD, message=message)


def opened(tenant_id: str, signed_in: LoginResult, code: str) -> tuple[str, Session]:
    """The session the password step opens: (cookie secret, session) at password, or at mfa when a code was given in
    the same POST (RFC 8176 2: pwd, otp, mfa), with no step and no rotation to follow."""
    if not code:
        return open_session(tenant_id, signed_in)
    assurance = assurance_of(frozenset({"pwd", "otp"}), 0)  # only its acr and amr: the session's time is its own
    return open_session(tenant_id, signed_in, acr=assurance.acr, amr=assurance.amr)
