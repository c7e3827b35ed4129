"""GET /console/operators, GET and POST /console/operator-role: the operators and their roles; a role granted or
revoked, confirmed first (docs/console.md, "Operators").

The list is `authgate operators list`'s: every person of the operators tenant and their roles (`operators.view`:
owner, auditor). A change is `authgate operators grant|revoke`'s, by the one implementation both call
(authgate.people.operator_roles), with its checks and its sentence, and its audit event (operator.role_granted,
operator.role_revoked) by the operator, naming their roles (`operators.change`: owner only). The console keeps an
owner: it refuses to take `owner` from the last operator who holds it, whom nobody could then replace here.
GET asks (the form's choice, its outcome shown before it is made), POST changes; both ask the roles' rule first.
"""

from __future__ import annotations

import html

from authgate import audit
from authgate.audit.actions import Action as AuditAction
from authgate.audit.event import Outcome
from authgate.audit.person import UNKNOWN
from authgate.console.pages import (
    STEP,
    Link,
    allow,
    confirmation,
    done,
    page,
    query_value,
    recorded,
    table,
    url,
)
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction.pages import form_fields
from authgate.operators import roles
from authgate.operators.errors import RoleNotHeld, RoleRefused
from authgate.people.operator_roles import (
    GRANT,
    REVOKE,
    LastOwner,
    UnknownOperator,
    UnknownTenant,
    change,
    check,
    existing,
)
from authgate.settings import get_settings

# A change: its button, and its audit action (authgate operators records the same).
_WORDS: dict[str, tuple[str, AuditAction]] = {
    GRANT: ("Grant", "operator.role_granted"), REVOKE: ("Revoke", "operator.role_revoked")}
_MAX_TENANTS = 50


def get_operators(request: Request, signed: SignedIn) -> Response:
    allow(signed, "operators.view")
    from authgate.stores.operators import OperatorStore

    tenant = get_settings().operators_tenant
    listed = list(OperatorStore().of_tenant(tenant))
    body = table(f"The people of the operators tenant {tenant}", ("Username", "User id", "Roles", "State"), (
        (o.username, o.user.user_id or "-", o.described(), "disabled" if o.user.disabled else "active")
        for o in listed))
    if roles.may(signed.operator.roles, "operators.change"):
        body += "\n" + _change_form(request, [o.username for o in listed])
    return page(request, signed, "Operators", body, current="operators")


def get_role_change(request: Request, signed: SignedIn) -> Response:
    allow(signed, "operators.change")
    asked, username, role = (query_value(request, name, 64 if name != "username" else 256)
                             for name in ("change", "username", "role"))
    tenants = _tenants(request.query.get("tenant", []))
    _checked(asked, username, role, tenants)
    from authgate.stores.operators import OperatorStore

    operator = OperatorStore().get(get_settings().operators_tenant, username)
    if operator is None:
        raise _nobody(username)
    try:
        existing(*tenants)
    except UnknownTenant as exc:
        raise _no_tenant(exc) from None
    try:
        after = (roles.granted if asked == GRANT else roles.revoked)(operator.roles, role, tenants)
    except RoleNotHeld as exc:
        raise ApiError("invalid_request", f"operator {username!r} {exc}.") from None
    label = _WORDS[asked][0]
    what = role + (f" ({', '.join(tenants)})" if tenants else "")
    return confirmation(
        request, signed, title=f"{label} {what}: {username}?",
        does=f"{username} holds {operator.described()} now, and will hold {roles.described(after)}.",
        target="operator-role", fields=(("change", asked), ("username", username), ("role", role),
                                        ("tenants", " ".join(tenants))),
        label=label, cancel=Link(url(request, "operators"), "Cancel"), current="operators")


def post_role_change(request: Request, signed: SignedIn) -> Response:
    allow(signed, "operators.change")
    fields = form_fields(request, STEP)
    asked, username, role = fields.get("change", ""), fields.get("username", ""), fields.get("role", "")
    tenants = _tenants(fields.get("tenants", "").split())
    _checked(asked, username, role, tenants)
    from authgate.stores.exceptions import ConcurrentUpdate

    label, action = _WORDS[asked]

    def recorded_as(user_id: str, outcome: Outcome = "success", reason: str | None = None) -> None:
        extra = {"tenants": list(tenants)} if tenants else {}
        recorded(signed, action, get_settings().operators_tenant, audit.user(user_id, username), asked,
                 outcome=outcome, reason=reason, role=role, **extra)

    try:
        changed = change(asked, username, role, tenants, keep_an_owner=True)
    except UnknownOperator:
        recorded_as(UNKNOWN, "failure", "unknown_account")
        raise _nobody(username) from None
    except UnknownTenant as exc:
        recorded_as(_user_id(username), "failure", "unknown_tenant")
        raise _no_tenant(exc) from None
    except (RoleNotHeld, LastOwner) as exc:
        recorded_as(_user_id(username), "failure", "last_owner" if isinstance(exc, LastOwner) else "role_not_held")
        raise ApiError("invalid_request", f"operator {username!r} {exc}.") from None
    except ConcurrentUpdate as exc:
        recorded_as(_user_id(username), "failure", "concurrent_update")
        raise ApiError("invalid_request", f"{exc}; nothing was changed: try again.") from None
    recorded_as(changed.operator.user.user_id)
    return done(request, signed, title=f"{label} {role}: {username}", said=changed.said,
                back=Link(url(request, "operators"), "Back to the operators"), current="operators")


def _checked(asked: str, username: str, role: str, tenants: tuple[str, ...]) -> None:
    """The change's own checks (authgate operators refuses the same), before anything is read: a 400 page."""
    if not username:
        raise ApiError("invalid_request", "Name the operator with username.")
    if len(username) > 256 or any(ord(c) < 32 for c in username):
        raise ApiError("invalid_request", "The username is too long or holds control characters.")
    try:
        check(asked, role, tenants)
    except RoleRefused as exc:
        raise ApiError("invalid_request", f"{exc}.") from None


def _tenants(values: list[str]) -> tuple[str, ...]:
    if len(values) > _MAX_TENANTS or any(len(v) > 64 or not v.isprintable() or " " in v for v in values):
        raise ApiError("invalid_request", "The tenants are too many, too long or hold spaces or control characters.")
    return tuple(sorted(set(values)))


def _user_id(username: str) -> str:
    from authgate.stores.users import UserStore

    user = UserStore().get(get_settings().operators_tenant, username)
    return user.user_id if user is not None and user.user_id else UNKNOWN


def _no_tenant(exc: UnknownTenant) -> ApiError:
    return ApiError("not_found", f"There is no tenant {exc.tenant_id!r}.")


def _nobody(username: str) -> ApiError:
    return ApiError("not_found", f"There is no person {username!r} in tenant {get_settings().operators_tenant!r}.")


def _change_form(request: Request, usernames: list[str]) -> str:
    """The form that asks for a change (GET: the confirmation page says what it will do)."""
    from authgate.stores.tenants import TenantStore

    e = html.escape

    def select(name: str, label: str, values: list[str], extra: str = "") -> str:
        options = "\n".join(f'<option value="{e(v)}">{e(v)}</option>' for v in values)
        return (f'<label for="{name}">{label}</label>\n<select id="{name}" name="{name}"{extra}>\n{options}\n'
                "</select>")

    # Several tenants at once (a support role): a list that takes more than one choice, no script needed.
    tenants = sorted(t.tenant_id for t in TenantStore().list())
    held = f"Tenants (role {', '.join(sorted(roles.TENANT_ROLES))} only; several with Ctrl or Shift)"
    return ('<section>\n<h2>Grant or revoke a role</h2>\n'
            f'<form method="get" action="{e(url(request, "operator-role"))}">\n'
            + "\n".join((select("change", "Change", ["grant", "revoke"]), select("username", "Operator", usernames),
                         select("role", "Role", list(roles.ROLES)),
                         select("tenant", e(held), tenants, f' multiple size="{min(max(len(tenants), 2), 6)}"')))
            + '\n<div class="actions"><button type="submit">Continue</button></div>\n</form>\n</section>')
