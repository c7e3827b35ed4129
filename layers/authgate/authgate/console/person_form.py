"""GET and POST /console/person-new and /console/person-edit: an owner creates a person, or changes their profile.

The forms take what `authgate users create` and `authgate users update` take (docs/console.md, "People: what only an
owner does"): a tenant and username, a name, an email and whether it is verified, and on creation a password, which
the command requires too (the person signs in with it; an operator who would rather not know it sets a temporary one
next, which the person must change). Each page asks operators.roles first (`people.create`, `people.update`, in the
tenant), before anything is read; the POST is authgate.people.accounts, the one the command calls, with its reasons
for a refusal and its sentence for what it did, and an audit event (user.created, user.changed, as the command
records), by the operator, naming their roles. The password is never logged, in the event, or shown again.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

from authgate import audit
from authgate.administration.input import InvalidInput
from authgate.audit.actions import Action as AuditAction
from authgate.audit.person import UNKNOWN
from authgate.console.act import named, nobody, person_url
from authgate.console.pages import (
    STEP,
    Link,
    allow,
    done,
    form_page,
    query_value,
    recorded,
    url,
)
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction.pages import form_fields
from authgate.operators import roles
from authgate.people.actions import Done
from authgate.users.errors import UserExists, UserNotFound

_YES = "yes"


def edit_link(request: Request, tenant: str, username: str) -> str:
    """The URL of a person's profile form."""
    return url(request, "person-edit", [("tenant", tenant), ("username", username)])


def get_new(request: Request, signed: SignedIn) -> Response:
    tenant = query_value(request, "tenant", 64)
    allow(signed, "people.create", tenant or None)
    reach = roles.reach(signed.operator.roles, "people.create")
    from authgate.stores.tenants import TenantStore

    tenants = sorted(t.tenant_id for t in TenantStore().list() if reach.includes(t.tenant_id))
    chosen = tenant or (tenants[0] if tenants else "")
    e = html.escape
    options = "\n".join(f'<option value="{e(t)}"{" selected" if t == chosen else ""}>{e(t)}</option>' for t in tenants)
    fields = (f'<label for="tenant">Tenant</label>\n<select id="tenant" name="tenant">\n{options}\n</select>\n'
              + _text("username", "Username", "", "off")
              + _profile("", "", False)
              + _text("password", "Password (at least 8 characters; not the username)", "", "new-password",
                      kind="password"))
    return _form(request, signed, "New person", "person-new", fields, "Create",
                 Link(url(request, "people", [("tenant", chosen)] if chosen else []), "Cancel"))


def post_new(request: Request, signed: SignedIn) -> Response:
    from authgate.people.accounts import create

    fields = form_fields(request, STEP)
    tenant, username = named(fields.get("tenant", ""), fields.get("username", ""))
    allow(signed, "people.create", tenant)
    _existing_tenant(tenant)
    name, email, verified = fields.get("name", ""), fields.get("email", ""), fields.get("email_verified") == _YES
    outcome = _taken(signed, "user.created", "create", tenant, username, lambda: create(
        tenant, username, fields.get("password", ""), name=name, email=email, email_verified=verified))
    return done(request, signed, title=f"New person: {username} ({tenant})", said=outcome.said,
                back=Link(person_url(request, tenant, username), f"Go to {username}"), current="people")


def get_edit(request: Request, signed: SignedIn) -> Response:
    tenant, username = named(query_value(request, "tenant", 64), query_value(request, "username"))
    allow(signed, "people.update", tenant)
    from authgate.stores.users import UserStore

    user = UserStore().get(tenant, username)
    if user is None:
        raise nobody(tenant, username)
    e = html.escape
    hidden = (f'<input type="hidden" name="tenant" value="{e(tenant)}">\n'
              f'<input type="hidden" name="username" value="{e(username)}">\n')
    note = "<p>A new email is not verified unless you say it is. Leave a field empty to remove it.</p>\n"
    return _form(request, signed, f"Edit: {username} ({tenant})", "person-edit",
                 hidden + note + _profile(user.name, user.email, user.email_verified), "Save",
                 Link(person_url(request, tenant, username), "Cancel"))


def post_edit(request: Request, signed: SignedIn) -> Response:
    from authgate.people.accounts import update

    fields = form_fields(request, STEP)
    tenant, username = named(fields.get("tenant", ""), fields.get("username", ""))
    allow(signed, "people.update", tenant)
    outcome = _taken(signed, "user.changed", "update", tenant, username, lambda: update(
        tenant, username, name=fields.get("name", ""), email=fields.get("email", ""),
        email_verified=fields.get("email_verified") == _YES))
    return done(request, signed, title=f"Edit: {username} ({tenant})", said=outcome.said,
                back=Link(person_url(request, tenant, username), f"Back to {username}"), current="people")


def _taken(signed: SignedIn, action: AuditAction, console_action: str, tenant: str, username: str,
           take: Callable[[], Done]) -> Done:
    """`take` the action; its audit event, success or not; a refusal is the command's reason on the 400 page."""
    def failed(reason: str) -> None:
        recorded(signed, action, tenant, audit.user(UNKNOWN, username), console_action, outcome="failure",
                 reason=reason)

    try:
        outcome = take()
    except InvalidInput as exc:
        failed("invalid_input")
        raise ApiError("invalid_request", str(exc)) from None
    except UserExists as exc:
        failed("user_exists")
        raise ApiError("invalid_request", str(exc)) from None
    except UserNotFound:
        failed("unknown_account")
        raise nobody(tenant, username) from None
    recorded(signed, action, tenant, audit.user(outcome.user.user_id, username), console_action)
    return outcome


def _form(request: Request, signed: SignedIn, title: str, target: str, fields: str, label: str,
          cancel: Link) -> Response:
    return form_page(request, signed, title=title, target=target, inner=fields, label=label, cancel=cancel,
                     current="people")


def _profile(name: str, email: str, verified: bool) -> str:
    """The profile's fields: name, email, whether the email is verified."""
    choices: Sequence[tuple[str, str]] = (("no", "No"), (_YES, "Yes"))
    options = "\n".join(f'<option value="{v}"{" selected" if (v == _YES) == verified else ""}>{t}</option>'
                        for v, t in choices)
    return (_text("name", "Name", name, "off") + _text("email", "Email", email, "off", kind="email")
            + f'<label for="email_verified">Email verified</label>\n'
              f'<select id="email_verified" name="email_verified">\n{options}\n</select>\n')


def _text(name: str, label: str, value: str, complete: str, *, kind: str = "text") -> str:
    e = html.escape
    return (f'<label for="{name}">{e(label)}</label>\n<input id="{name}" name="{name}" type="{kind}" '
            f'value="{e(value)}" autocomplete="{complete}" spellcheck="false">\n')


def _existing_tenant(tenant: str) -> None:
    from authgate.stores.tenants import TenantStore

    if TenantStore().get(tenant) is None:
        raise ApiError("not_found", f"There is no tenant {tenant!r}.")
