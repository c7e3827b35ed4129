"""GET /console/tenants: every tenant (`authgate tenants list`), each a link to its settings (console.tenant).

Allowed by `tenants.view` (operators.roles: the owner, an admin, an auditor), judged before anything is read; an
operator who may change tenants finds the link to create one.
"""

from __future__ import annotations

from authgate.console.pages import Link, allow, links, page, table, url
from authgate.console.session import SignedIn
from authgate.console.tenant import setting_words
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.operators import roles


def get_tenants(request: Request, signed: SignedIn) -> Response:
    allow(signed, "tenants.view")
    from authgate.stores.tenants import TenantStore

    tenants = sorted(TenantStore().list(), key=lambda t: t.tenant_id)
    body = table(f"{len(tenants)} tenant{'s' if len(tenants) != 1 else ''}",
                 ("Tenant", "Name", "Currencies", "Second factor required"),
                 ((Link(url(request, "tenant", [("tenant", t.tenant_id)]), t.tenant_id), t.name or "-",
                   setting_words(t, "currencies"), setting_words(t, "require_mfa")) for t in tenants))
    if roles.may(signed.operator.roles, "tenants.change"):
        body += "\n" + links([Link(url(request, "tenant-create"), "Create a tenant")])
    return page(request, signed, "Tenants", body, current="tenants")
