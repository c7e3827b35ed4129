"""GET and POST /console/act: what support does to a person, confirmed first (docs/console.md, "Actions").

GET ?tenant=T&username=U&action=A is the confirmation: what the action does, and a form (CSRF, as every console form)
that posts it; POST takes it. Both ask operators.roles first (`people.A`, in the person's tenant), before the person is
read, whatever the form or the URL says: a role that may not is the 403 page. The action itself is
authgate.people.actions, the one `authgate users` calls too, and the page says what the command prints. Each is an
audit event (AUDITED: the action `authgate users` records), by the operator, naming their roles, success or not.
"""

from __future__ import annotations

from typing import NamedTuple

from authgate import audit
from authgate.audit.actions import Action as AuditAction
from authgate.audit.event import Outcome
from authgate.audit.person import UNKNOWN
from authgate.console.pages import STEP, Link, allow, confirmation, done, query_value, recorded, url
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction.pages import form_fields
from authgate.issuer import base_url
from authgate.logs import get_logger
from authgate.people.actions import ACTIONS, ResetLinkRefused
from authgate.users.errors import UserNotFound


class Action(NamedTuple):
    label: str  # the button
    does: str  # what it does to the person, for the confirmation ({who}: the username)


WHAT: dict[str, Action] = {
    "disable": Action("Disable", "{who} can no longer sign in; their sessions and refresh tokens end now."),
    "enable": Action("Enable", "{who} can sign in again."),
    "unlock": Action("Unlock", "{who}'s failed sign-ins are forgotten and their account unlocked."),
    "reset-mfa": Action("Reset the second factor", "{who}'s one-time code, recovery codes and passkeys are "
                        "removed and their sessions end now; they set up a second factor again at their next "
                        "sign-in."),
    "revoke-sessions": Action("End the sessions", "Every sign-in session of {who} ends now; the applications that "
                              "asked are told."),
    "send-reset-link": Action("Send a reset link", "A link to choose a new password is mailed to {who}'s email "
                              "address; it works once, within 15 minutes. The password stays as it is until it is "
                              "used."),
}


# The audit trail's action of each (authgate.audit: the same as when `authgate users` takes it).
AUDITED: dict[str, AuditAction] = {
    "disable": "user.disabled", "enable": "user.enabled", "unlock": "account.unlocked", "reset-mfa": "factor.removed",
    "revoke-sessions": "user.sessions_revoked", "send-reset-link": "password.reset_requested",
}


def rule(action: str) -> str:
    """The roles' action (operators.roles) of a console action: people.disable, people.reset_mfa, ..."""
    return "people." + action.replace("-", "_")


def link(request: Request, tenant: str, username: str, action: str) -> str:
    """The URL of an action's confirmation page."""
    return url(request, "act", [("tenant", tenant), ("username", username), ("action", action)])


def get_act(request: Request, signed: SignedIn) -> Response:
    tenant, username, action = _named(request, query_value(request, "tenant", 64), query_value(request, "username"),
                                      query_value(request, "action", 32))
    allow(signed, rule(action), tenant)
    from authgate.stores.users import UserStore

    if UserStore().get(tenant, username) is None:
        raise _nobody(tenant, username)
    what = WHAT[action]
    return confirmation(request, signed, title=f"{what.label}: {username} ({tenant})?", does=what.does.format(who=username),
                        target="act", fields=(("tenant", tenant), ("username", username), ("action", action)),
                        label=what.label, cancel=Link(_person(request, tenant, username), "Cancel"), current="people")


def post_act(request: Request, signed: SignedIn) -> Response:
    fields = form_fields(request, STEP)
    tenant, username, action = _named(request, fields.get("tenant", ""), fields.get("username", ""),
                                      fields.get("action", ""))
    allow(signed, rule(action), tenant)

    def recorded_as(user_id: str, outcome: Outcome = "success", reason: str | None = None) -> None:
        recorded(signed, AUDITED[action], tenant, audit.user(user_id, username), action, outcome=outcome,
                 reason=reason)

    try:
        outcome = ACTIONS[action](tenant, username, base_url(request))
    except UserNotFound:
        recorded_as(UNKNOWN, "failure", "unknown_account")
        raise _nobody(tenant, username) from None
    except ResetLinkRefused as exc:
        recorded_as(exc.user.user_id, "failure", exc.reason)
        raise ApiError("invalid_request", f"No link was sent: {exc}.") from None
    recorded_as(outcome.user.user_id)
    # Ids only: the person acted on by their stable id, never their username or email.
    get_logger().info("console action", extra={"operator": signed.operator.username,
                                               "roles": signed.operator.described(), "action": action,
                                               "tenant": tenant, "user_id": outcome.user.user_id})
    return done(request, signed, title=f"{WHAT[action].label}: {username} ({tenant})", said=outcome.said,
                back=Link(_person(request, tenant, username), f"Back to {username}"), current="people")


def _named(request: Request, tenant: str, username: str, action: str) -> tuple[str, str, str]:
    if not tenant or not username:
        raise ApiError("invalid_request", "Name the person with tenant and username.")
    if action not in WHAT:
        raise ApiError("invalid_request", f"There is no action {action[:32]!r}: the actions are "
                                          f"{', '.join(WHAT)}.")
    if len(tenant) > 64 or len(username) > 256 or any(ord(c) < 32 for c in tenant + username):
        raise ApiError("invalid_request", "The tenant or username is too long or holds control characters.")
    return tenant, username, action


def _nobody(tenant: str, username: str) -> ApiError:
    return ApiError("not_found", f"There is no person {username!r} in tenant {tenant!r}.")


def _person(request: Request, tenant: str, username: str) -> str:
    return url(request, "person", [("tenant", tenant), ("username", username)])
