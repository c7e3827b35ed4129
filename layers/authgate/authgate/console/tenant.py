"""GET /console/tenant?tenant=T: one tenant's settings (`authgate tenants show`), each in words people read and what
it means, with links to its people and, for an operator who may change tenants, to change its settings.

Allowed by `tenants.view` in that tenant (operators.roles), judged before the tenant is read. The settings and their
words are the one table the admin commands use (authgate.administration.tenant_settings).
"""

from __future__ import annotations

import html

from authgate.administration.tenant_settings import SETTINGS, Setting, value_of
from authgate.console.pages import Link, allow, links, page, query_value, section, url
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.operators import roles
from authgate.tenants.model import Tenant


def get_tenant(request: Request, signed: SignedIn) -> Response:
    tenant_id = query_value(request, "tenant", 64)
    if not tenant_id:
        raise ApiError("invalid_request", "Name the tenant with tenant.")
    allow(signed, "tenants.view", tenant_id)
    tenant = existing(tenant_id)
    offered = [Link(url(request, "people", [("tenant", tenant_id)]), f"People of {tenant_id}")] if roles.may(
        signed.operator.roles, "people.find", tenant_id) else []
    if roles.may(signed.operator.roles, "tenants.change", tenant_id):
        offered.append(Link(url(request, "tenant-update", [("tenant", tenant_id)]), "Change the settings"))
    body = (links(offered) if offered else "") + "\n" + section("Settings", settings_list(tenant))
    return page(request, signed, f"Tenant {tenant_id}", body, current="tenants")


def existing(tenant_id: str) -> Tenant:
    """The tenant `tenant_id`, or the 404 page."""
    from authgate.stores.tenants import TenantStore

    tenant = TenantStore().get(tenant_id)
    if tenant is None:
        raise ApiError("not_found", f"There is no tenant {tenant_id!r}.")
    return tenant


def settings_list(tenant: Tenant) -> str:
    """Every setting: its label, its value in words, and what it means."""
    e = html.escape
    items = "\n".join(f'<dt>{e(s.label)}</dt><dd>{e(words(s, value_of(tenant, s)))}<br>'
                      f'<span class="fine">{e(s.means)}</span></dd>' for s in SETTINGS)
    return f"<dl>\n<dt>Tenant id</dt><dd>{e(tenant.tenant_id)}</dd>\n{items}\n</dl>"


def words(setting: Setting, value: object) -> str:
    """A setting's value as people read it: yes or no, a list or "none", a number and its unit, or "off"."""
    if setting.kind == "switch":
        return "yes" if value else "no"
    if value is None:
        return "off"
    if isinstance(value, (tuple, frozenset)):
        return ", ".join(sorted(value) if isinstance(value, frozenset) else value) or "none"
    return f"{value} {setting.unit}" if setting.unit else str(value)


def setting_words(tenant: Tenant, field: str) -> str:
    """The value of `tenant`'s setting `field` in words."""
    setting = next(s for s in SETTINGS if s.field == field)
    return words(setting, value_of(tenant, setting))
