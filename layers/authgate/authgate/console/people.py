"""GET /console/people: find a person by username (or its beginning), email or user id, in the tenants one may.

The tenants are those the operator's roles reach for `people.find` (operators.roles): every tenant for an owner or an
auditor, the assigned ones for support; a tenant outside them is refused before anything of it is read. What is typed
decides the read: an email (it has an @) the UsersByEmail index, a user id (`usr_...`) the UsersById index, anything
else the usernames that begin with it; nothing, the tenant's people in username order. Usernames come a page at a
time (PAGE_SIZE), the next page after the last username shown.
"""

from __future__ import annotations

import html

from authgate.console.pages import (
    Link,
    chosen_tenant,
    links,
    page,
    query_value,
    table,
    tenant_picker,
    url,
)
from authgate.console.session import SignedIn
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.operators import roles
from authgate.stores.users import UserStore
from authgate.users.model import User

PAGE_SIZE = 20
USER_ID_PREFIX = "usr_"


def get_people(request: Request, signed: SignedIn) -> Response:
    tenants, tenant = chosen_tenant(request, signed, "people.find")
    q, after = query_value(request, "q").strip(), query_value(request, "after")
    found, next_after = _find(tenant, q, after)
    body = _new(request, signed, tenant) + _form(request, tenants, tenant, q) + "\n" + _results(
        request, tenant, q, found, next_after, after)
    return page(request, signed, "People", body, current="people")


def _find(tenant: str, q: str, after: str) -> tuple[list[User], str]:
    """The people `q` names in `tenant`, and the username to continue after ("" when none is left)."""
    store = UserStore()
    if "@" in q:
        return store.by_email(tenant, q), ""
    if q.startswith(USER_ID_PREFIX):
        user = store.by_user_id(tenant, q)
        return ([user] if user is not None else []), ""
    return store.page(tenant, prefix=q, after=after, limit=PAGE_SIZE)


def _form(request: Request, tenants: list[str], tenant: str, q: str) -> str:
    return tenant_picker(request, "people", tenants, tenant, "Find", role="search", more=(
        '<label for="q">Username, email or user id</label>\n'
        f'<input id="q" name="q" type="search" value="{html.escape(q)}" autocomplete="off" spellcheck="false">\n'))


def _results(request: Request, tenant: str, q: str, found: list[User], next_after: str, after: str) -> str:
    e = html.escape
    if not found:
        what = f"matches {e(q)!r}" if q else "is in this tenant"
        return f'<p role="status">Nobody {what}.</p>'
    caption = f"People of {tenant}" + (f" matching {q!r}" if q else "") + (" (continued)" if after else "")
    more = (f'<p><a href="{e(url(request, "people", [("tenant", tenant), ("q", q), ("after", next_after)]))}">'
            "Next page</a></p>") if next_after else ""
    return table(caption, ("Username", "Name", "Email", "State"), (
        (Link(url(request, "person", [("tenant", tenant), ("username", u.username)]), u.username), u.name or "-",
         u.email or "-", state(u)) for u in found)) + f"\n{more}"


def _new(request: Request, signed: SignedIn, tenant: str) -> str:
    """The way to the New person form (console.person_form), for an operator who may create people here."""
    if not roles.may(signed.operator.roles, "people.create", tenant):
        return ""
    return links([Link(url(request, "person-new", [("tenant", tenant)]), "New person")]) + "\n"


def state(user: User) -> str:
    """A person's state in words: disabled, locked, must change the password, signs in upstream only, or active."""
    from authgate import clock

    flags = [word for word, on in (("disabled", user.disabled), ("locked", user.locked(clock.seconds())),
                                   ("must change the password", user.must_change_password),
                                   ("signs in through an identity provider only", user.federated_only)) if on]
    return ", ".join(flags) or "active"
