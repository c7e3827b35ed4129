"""GET and POST /console/act: what an operator does to a person, confirmed first (docs/console.md, "Actions").

GET ?tenant=T&username=U&action=A is the confirmation: what the action does, and a form (CSRF, as every console form)
that posts it; POST takes it. Both ask operators.roles first (`people.A`, in the person's tenant), before the person is
read, whatever the form or the URL says: a role that may not is the 403 page. The action itself is authgate.people's
(actions: what support does; accounts, consents, identities: what only an owner does), the one `authgate users` calls
too, and the page says what the command prints; a refusal is the command's reason. Withdrawing a consent and unlinking
an identity name what they act on beside the person (`client`, `idp`: Action.names). A temporary password is made
here, shown once on the answer page (never cached, never logged nor in the event). Each is an audit event (AUDITED:
the action `authgate users` records), by the operator, naming their roles, success or not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from authgate import audit
from authgate.administration.input import InvalidInput
from authgate.audit.actions import Action as AuditAction
from authgate.audit.event import Outcome
from authgate.audit.person import UNKNOWN
from authgate.console.pages import (
    STEP,
    Link,
    allow,
    confirmation,
    done,
    query_value,
    recorded,
    secret_once,
    url,
)
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction.pages import form_fields
from authgate.issuer import base_url
from authgate.logs import get_logger
from authgate.people.actions import ACTIONS, Done, ResetLinkRefused
from authgate.users.errors import UserNotFound


class Action(NamedTuple):
    label: str  # the button
    does: str  # what it does to the person, for the confirmation ({who}: the username; {what}: `names`' value)
    names: str = ""  # the field naming what it acts on beside the person ("" none)


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
    "reset-password": Action("Set a temporary password", "A new password is made for {who} and shown to you once, on "
                             "the next page, to hand on to them; they must change it at their next sign-in. The "
                             "password they had stops working, and their sessions and refresh tokens end now."),
    "delete": Action("Delete", "{who} is removed with everything kept about them: their profile (name and email), "
                     "password, second factors and passkeys, and linked identities. Their sessions and refresh tokens "
                     "end now. This cannot be undone: a person created again under the name is someone new."),
    "revoke-consent": Action("Withdraw", "{who}'s consent for the client {what} is withdrawn and every grant made "
                             "under it revoked: the client's refresh tokens are refused, and it asks {who} for consent "
                             "again at its next authorization request.", "client"),
    "unlink": Action("Unlink", "{who}'s identity at {what} is removed: it signs in as nobody until it is linked "
                     "again.", "idp"),
}


# The audit trail's action of each (authgate.audit: the same as when `authgate users` takes it).
AUDITED: dict[str, AuditAction] = {
    "disable": "user.disabled", "enable": "user.enabled", "unlock": "account.unlocked", "reset-mfa": "factor.removed",
    "revoke-sessions": "user.sessions_revoked", "send-reset-link": "password.reset_requested",
    "reset-password": "password.reset", "delete": "user.deleted", "revoke-consent": "consent.revoked",
    "unlink": "identity.unlinked",
}


def _reset_password(tenant: str, username: str, issuer: str, _: str) -> tuple[Done, str]:
    from authgate.people.accounts import reset_password, temporary_password

    password = temporary_password()
    outcome = reset_password(tenant, username, password, issuer)
    return outcome, secret_once("The temporary password", password, f"Hand it on to {username}: it is shown "
                               "this once, and they choose their own at their next sign-in.")


def _delete(tenant: str, username: str, issuer: str, _: str) -> tuple[Done, str]:
    from authgate.people.accounts import delete

    return delete(tenant, username, issuer), ""


def _revoke_consent(tenant: str, username: str, _: str, client_id: str) -> tuple[Done, str]:
    from authgate.people.consents import withdraw_consent

    return withdraw_consent(tenant, username, client_id), ""


def _unlink(tenant: str, username: str, _: str, idp: str) -> tuple[Done, str]:
    from authgate.people.identities import unlink

    outcome = unlink(tenant, username, idp)
    if not outcome.figures["unlinked"]:
        raise InvalidInput(outcome.said)
    return outcome, ""


# What only an owner does (authgate.people.accounts, consents, identities): (tenant, username, issuer, the `names`
# field) -> the outcome, and what the answer page shows once (HTML).
OWNED: dict[str, Callable[[str, str, str, str], tuple[Done, str]]] = {
    "reset-password": _reset_password, "delete": _delete, "revoke-consent": _revoke_consent, "unlink": _unlink,
}


def rule(action: str) -> str:
    """The roles' action (operators.roles) of a console action: people.disable, people.reset_mfa, ..."""
    return "people." + action.replace("-", "_")


def link(request: Request, tenant: str, username: str, action: str, what: str = "") -> str:
    """The URL of an action's confirmation page (`what`: the value of the field the action names, if any)."""
    named = WHAT[action].names
    return url(request, "act", [("tenant", tenant), ("username", username), ("action", action),
                                *([(named, what)] if named else [])])


def get_act(request: Request, signed: SignedIn) -> Response:
    tenant, username, action = _named(request, query_value(request, "tenant", 64), query_value(request, "username"),
                                      query_value(request, "action", 32))
    allow(signed, rule(action), tenant)
    what = WHAT[action]
    thing = _thing(action, query_value(request, what.names, 1024) if what.names else "")
    from authgate.stores.users import UserStore

    if UserStore().get(tenant, username) is None:
        raise nobody(tenant, username)
    return confirmation(request, signed, title=f"{what.label}: {username} ({tenant})?",
                        does=what.does.format(who=username, what=thing), target="act",
                        fields=(("tenant", tenant), ("username", username), ("action", action),
                                *([(what.names, thing)] if what.names else [])),
                        label=what.label, cancel=Link(person_url(request, tenant, username), "Cancel"), current="people")


def post_act(request: Request, signed: SignedIn) -> Response:
    fields = form_fields(request, STEP)
    tenant, username, action = _named(request, fields.get("tenant", ""), fields.get("username", ""),
                                      fields.get("action", ""))
    allow(signed, rule(action), tenant)
    names = WHAT[action].names
    thing = _thing(action, fields.get(names, "") if names else "")
    named = {"client_id" if names == "client" else names: thing} if names else {}  # as the command's details

    def recorded_as(user_id: str, outcome: Outcome = "success", reason: str | None = None) -> None:
        recorded(signed, AUDITED[action], tenant, audit.user(user_id, username), action, outcome=outcome,
                 reason=reason, **named)

    shown = ""
    try:
        if action in OWNED:
            outcome, shown = OWNED[action](tenant, username, base_url(request), thing)
        else:
            outcome = ACTIONS[action](tenant, username, base_url(request))
    except UserNotFound:
        recorded_as(UNKNOWN, "failure", "unknown_account")
        raise nobody(tenant, username) from None
    except ResetLinkRefused as exc:
        recorded_as(exc.user.user_id, "failure", exc.reason)
        raise ApiError("invalid_request", f"No link was sent: {exc}.") from None
    except LookupError as exc:  # people.consents.UnknownClient, NoConsent; people.identities.NotLinked
        recorded_as(_user_id(tenant, username), "failure", type(exc).__name__)
        raise ApiError("not_found", str(exc)) from None
    except InvalidInput as exc:
        recorded_as(_user_id(tenant, username), "failure", "invalid_input")
        raise ApiError("invalid_request", str(exc)) from None
    recorded_as(outcome.user.user_id)
    # Ids only: the person acted on by their stable id, never their username or email.
    get_logger().info("console action", extra={"operator": signed.operator.username,
                                               "roles": signed.operator.described(), "action": action,
                                               "tenant": tenant, "user_id": outcome.user.user_id})
    back = (Link(url(request, "people", [("tenant", tenant)]), f"Back to the people of {tenant}") if action == "delete"
            else Link(person_url(request, tenant, username), f"Back to {username}"))
    return done(request, signed, title=f"{WHAT[action].label}: {username} ({tenant})", said=outcome.said, back=back,
                current="people", more=shown)


def _named(request: Request, tenant: str, username: str, action: str) -> tuple[str, str, str]:
    if tenant and username and action not in WHAT:
        raise ApiError("invalid_request", f"There is no action {action[:32]!r}: the actions are "
                                          f"{', '.join(WHAT)}.")
    return (*named(tenant, username), action)


def named(tenant: str, username: str) -> tuple[str, str]:
    """The person a page or a form names (400 when it names none, or not as a person can be named)."""
    if not tenant or not username:
        raise ApiError("invalid_request", "Name the person with tenant and username.")
    if len(tenant) > 64 or len(username) > 256 or any(ord(c) < 32 for c in tenant + username):
        raise ApiError("invalid_request", "The tenant or username is too long or holds control characters.")
    return tenant, username


def _thing(action: str, value: str) -> str:
    """The client or identity provider an action names beside the person, checked as the command checks it."""
    names = WHAT[action].names
    if not names:
        return ""
    from authgate.administration.input import identifier
    from authgate.users.linked_identities import MAX_ISSUER

    try:
        return identifier(value, "--client" if names == "client" else "--idp",
                          **({"limit": MAX_ISSUER} if names == "idp" else {}))
    except InvalidInput as exc:
        raise ApiError("invalid_request", str(exc)) from None


def _user_id(tenant: str, username: str) -> str:
    """The person's id for the trail (UNKNOWN when there is none)."""
    from authgate.stores.users import UserStore

    user = UserStore().get(tenant, username)
    return user.user_id if user is not None and user.user_id else UNKNOWN


def nobody(tenant: str, username: str) -> ApiError:
    """The 404 of a person who is not there."""
    return ApiError("not_found", f"There is no person {username!r} in tenant {tenant!r}.")


def person_url(request: Request, tenant: str, username: str) -> str:
    """The URL of a person's page."""
    return url(request, "person", [("tenant", tenant), ("username", username)])
