"""GET /console/person?tenant=T&username=U: one person: profile, state, the actions one may take (act), sessions,
factors, linked identities, consents.

Allowed by `people.view` in the person's tenant (operators.roles), judged before the person is read. What is shown is
never a secret: a factor is whether it is held (and how many recovery codes are left), a passkey its name and dates,
a session when and how the person signed in and which applications it served.
"""

from __future__ import annotations

from authgate.console.act import WHAT, link, rule
from authgate.console.pages import (
    Link,
    allow,
    definitions,
    links,
    page,
    query_value,
    section,
    table,
    when,
)
from authgate.console.people import state
from authgate.console.person_events import recent_events
from authgate.console.person_form import edit_link
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.operators import roles
from authgate.stores.linked_identities import LinkedIdentityStore
from authgate.stores.passkeys import PasskeyStore
from authgate.stores.sessions import SessionStore
from authgate.stores.user_factors import UserFactorStore
from authgate.users.model import User


def get_person(request: Request, signed: SignedIn) -> Response:
    tenant, username = query_value(request, "tenant", 64), query_value(request, "username")
    if not tenant or not username:
        raise ApiError("invalid_request", "Name the person with tenant and username.")
    allow(signed, "people.view", tenant)
    user = UserFactorStore().get(tenant, username)
    if user is None:
        raise ApiError("not_found", f"There is no person {username!r} in tenant {tenant!r}.")
    body = "\n".join((_profile(user), _actions(request, signed, user), _sessions(user), _factors(user),
                      _identities(request, signed, user), _consents(request, signed, user),
                      recent_events(request, signed, user)))
    return page(request, signed, f"{username} ({tenant})", body, current="people")


def _actions(request: Request, signed: SignedIn, user: User) -> str:
    """Links to the confirmation of each action the operator's roles allow on this person (none: no section), and
    to the profile's form (person_form) for an owner. A consent's or an identity's own action is on its row."""
    offered = [Link(link(request, user.tenant_id, user.username, name), WHAT[name].label) for name in WHAT
               if name != ("enable" if not user.disabled else "disable") and not WHAT[name].names
               and roles.may(signed.operator.roles, rule(name), user.tenant_id)]
    if roles.may(signed.operator.roles, "people.update", user.tenant_id):
        offered.insert(0, Link(edit_link(request, user.tenant_id, user.username), "Edit"))
    return section("Actions", links(offered)) if offered else ""


def _row_action(request: Request, signed: SignedIn, user: User, action: str, what: str) -> list[str | Link]:
    """The cell of a row's own action (withdraw, unlink) for an operator whose roles allow it; none otherwise."""
    if not roles.may(signed.operator.roles, rule(action), user.tenant_id):
        return []
    return [Link(link(request, user.tenant_id, user.username, action, what), WHAT[action].label)]


def _profile(user: User) -> str:
    email = (user.email + (" (verified)" if user.email_verified else " (not verified)")) if user.email else "-"
    return definitions("Profile", [("Username", user.username), ("User id", user.user_id or "-"), ("Name", user.name or "-"),
                             ("Email", email), ("State", state(user)), ("Created", when(user.created_at)),
                             ("Updated", when(user.updated_at)), ("Sessions ended before", when(user.sessions_valid_after))])


def _sessions(user: User) -> str:
    sessions = SessionStore().standing(user)
    if not sessions:
        return section("Sign-in sessions", "<p>No sign-in session is live.</p>")
    return section("Sign-in sessions", table(
        f"{len(sessions)} live sign-in session{'s' if len(sessions) != 1 else ''}",
        ("Signed in", "How", "Last active", "Applications"),
        ((when(s.auth_time), f"{s.acr} ({' '.join(s.amr)})", when(s.last_active), ", ".join(s.clients) or "-")
         for s in sessions)))


def _factors(user: User) -> str:
    factors = UserFactorStore().factors(user.tenant_id, user.username)
    passkeys = PasskeyStore().of_user(user.tenant_id, user.username)
    code = "not set up" if factors is None or not factors.totp else \
        f"set up ({factors.recovery_codes_left} recovery codes left)"
    pairs = [("One-time code", code + (", an enrolment is pending" if factors and factors.totp_pending else ""))]
    pairs += [(f"Passkey {p.name}", f"created {when(p.created_at)}, last used {when(p.last_used_at)}") for p in passkeys]
    if not passkeys:
        pairs.append(("Passkeys", "none"))
    return definitions("Second factors", pairs)


def _consents(request: Request, signed: SignedIn, user: User) -> str:
    """What the person approved for each client (single sign-on asks only for what is new); Withdraw, for an owner."""
    from authgate.stores.consents import DEFAULT_RESOURCE, ConsentStore

    granted = ConsentStore().of_user(user.tenant_id, user.user_id) if user.user_id else []
    if not granted:
        return section("Consents", "<p>No application holds a remembered consent.</p>")
    withdraw = roles.may(signed.operator.roles, rule("revoke-consent"), user.tenant_id)
    return section("Consents", table(
        f"{len(granted)} remembered consent{'s' if len(granted) != 1 else ''}",
        ("Client", "Scopes", *(["Action"] if withdraw else [])),
        ([consent.client_id, "; ".join(" ".join(scopes) + ("" if resource == DEFAULT_RESOURCE else f" (for {resource})")
                                       for resource, scopes in consent.scopes.items()),
          *_row_action(request, signed, user, "revoke-consent", consent.client_id)] for consent in granted)))


def _identities(request: Request, signed: SignedIn, user: User) -> str:
    """The person's identities at the tenant's identity providers; Unlink (the IdP's), for an owner."""
    held = LinkedIdentityStore().of_user(user.user_id)
    if not held:
        return section("Linked identities", "<p>No identity at an identity provider is linked.</p>")
    unlink = roles.may(signed.operator.roles, rule("unlink"), user.tenant_id)
    return section("Linked identities", table(
        f"{len(held)} linked identit{'ies' if len(held) != 1 else 'y'}",
        ("Identity provider", "Subject", "Linked", *(["Action"] if unlink else [])),
        ([each.issuer, each.subject, when(each.linked_at) + (f" ({each.via})" if each.via else ""),
          *_row_action(request, signed, user, "unlink", each.issuer)] for each in held)))
