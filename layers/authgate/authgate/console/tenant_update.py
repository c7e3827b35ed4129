"""GET and POST /console/tenant-update?tenant=T: change a tenant's settings (`authgate tenants update`).

The form holds every setting as it is; only the settings whose value the operator changed are changed, the others
kept, as `update` keeps the settings it is not given. A change that weakens the tenant's security (a second factor no
longer required, a scope no longer forbidden, ...: administration.tenant_settings.weakened) is asked for first, on a
page that says what will change. Allowed by `tenants.change` in that tenant, judged before the tenant is read; the
change is authgate.administration.tenants.update, the one `authgate tenants update` calls, with its checks and
messages, and the audit event the command records (tenant.changed), by the operator, naming their roles, with what
changed.
"""

from __future__ import annotations

from typing import Any

from authgate.administration.input import InvalidInput
from authgate.administration.tenant_settings import SETTINGS, given, value_of, weakened
from authgate.administration.tenant_settings import tenant_id as tenant_id_of
from authgate.console.pages import STEP, Link, allow, confirmation, done, query_value, recorded, url
from authgate.console.session import SignedIn
from authgate.console.tenant import existing, words
from authgate.console.tenant_form import INVALID, form_page, form_value, plain, posted, target
from authgate.errors import ApiError
from authgate.errors.codes import Code
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction.pages import form_fields
from authgate.tenants.model import Tenant


def get_tenant_update(request: Request, signed: SignedIn) -> Response:
    tenant_id = _named(query_value(request, "tenant", 64))
    allow(signed, "tenants.change", tenant_id)
    tenant = existing(tenant_id)
    return form_page(request, signed, title=f"Change the settings of {tenant_id}", target="tenant-update",
                     tenant=tenant, new=False, label="Save the changes", cancel=_back(request, tenant_id, "Cancel"))


def post_tenant_update(request: Request, signed: SignedIn) -> Response:
    fields = form_fields(request, STEP)
    tenant_id = _named(fields.get("tenant", ""))
    allow(signed, "tenants.change", tenant_id)
    from authgate.administration.tenants import said, update
    from authgate.tenants.errors import TenantNotFound

    current = existing(tenant_id)
    values = posted(fields, new=False)
    try:
        changes = {field: value for field, value in given(values).items() if value != getattr(current, field)}
    except InvalidInput as exc:
        raise _refused(signed, tenant_id, str(exc), INVALID) from None
    back = _back(request, tenant_id, f"The settings of {tenant_id}")
    title = f"Change the settings of {tenant_id}"
    if not changes:
        return done(request, signed, title=title, said="nothing changed: every setting is as it was", back=back,
                    current="tenants")
    after = current._replace(**changes)
    if weakened(current, after) and fields.get("confirmed") != "yes":
        return _confirmation(request, signed, current, after, {field: values[field] for field in changes})
    try:
        updated = update(tenant_id, {field: values[field] for field in changes})
    except InvalidInput as exc:
        raise _refused(signed, tenant_id, str(exc), INVALID) from None
    except TenantNotFound:
        raise _refused(signed, tenant_id, f"There is no tenant {tenant_id!r}.", "unknown_tenant", "not_found") from None
    recorded(signed, "tenant.changed", tenant_id, target(tenant_id), "update", **plain(changes))
    return done(request, signed, title=title, said=said(updated.after, "updated"), back=back, current="tenants")


def _confirmation(request: Request, signed: SignedIn, before: Tenant, after: Tenant,
                  values: dict[str, Any]) -> Response:
    """The page that says what will change, the changes that weaken the tenant's security first."""
    weaker = weakened(before, after)
    changed = [s for s in SETTINGS if s.field in values]

    def change(s: Any) -> str:
        return f"{s.label}: {words(s, value_of(before, s))} becomes {words(s, value_of(after, s))}"

    others = [change(s) for s in changed if s not in weaker]
    does = (f"This weakens the security of tenant {before.tenant_id}: " + "; ".join(change(s) for s in weaker) + "."
            + (f" It also changes: {'; '.join(others)}." if others else ""))
    return confirmation(request, signed, title=f"Weaken the security of {before.tenant_id}?", does=does,
                        target="tenant-update",
                        fields=(("tenant", before.tenant_id), ("confirmed", "yes"),
                                *((s.field, form_value(s, values[s.field])) for s in changed)),
                        label="Change the settings", cancel=_back(request, before.tenant_id, "Cancel"),
                        current="tenants")


def _named(tenant_id: str) -> str:
    """The tenant a page or a form names, its id as tenants have them (the command's message otherwise)."""
    if not tenant_id:
        raise ApiError("invalid_request", "Name the tenant with tenant.")
    try:
        return tenant_id_of("tenant id", tenant_id)
    except InvalidInput as exc:
        raise ApiError("invalid_request", str(exc)) from None


def _refused(signed: SignedIn, tenant_id: str, message: str, reason: str, code: Code = "invalid_request") -> ApiError:
    recorded(signed, "tenant.changed", tenant_id[:64], target(tenant_id[:64]), "update", outcome="failure",
             reason=reason)
    return ApiError(code, message)


def _back(request: Request, tenant_id: str, text: str) -> Link:
    return Link(url(request, "tenant", [("tenant", tenant_id)]), text)
