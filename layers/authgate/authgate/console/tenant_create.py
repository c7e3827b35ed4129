"""GET and POST /console/tenant-create: a new tenant, its id and its settings (`authgate tenants create`).

Allowed by `tenants.change` (operators.roles: the owner, an admin), judged before anything is read, whatever the form
says. The tenant is made by authgate.administration.tenants.create, the one `authgate tenants create` calls, with its
checks and its messages (a refusal is the 400 page saying what the command says after "authgate tenants: "). Each is
the audit event the command records (tenant.created), by the operator, naming their roles, with what was given.
"""

from __future__ import annotations

from authgate.administration.input import InvalidInput
from authgate.administration.tenant_settings import given
from authgate.console.pages import STEP, Link, allow, done, recorded, url
from authgate.console.session import SignedIn
from authgate.console.tenant_form import INVALID, form_page, plain, posted, target
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction.pages import form_fields
from authgate.tenants.model import Tenant


def get_tenant_create(request: Request, signed: SignedIn) -> Response:
    allow(signed, "tenants.change")
    return form_page(request, signed, title="Create a tenant", target="tenant-create", tenant=Tenant(""), new=True,
                     label="Create the tenant", cancel=Link(url(request, "tenants"), "Cancel"))


def post_tenant_create(request: Request, signed: SignedIn) -> Response:
    fields = form_fields(request, STEP)
    tenant_id = fields.get("tenant", "")
    allow(signed, "tenants.change")
    from authgate.administration.tenants import create, said
    from authgate.tenants.errors import TenantExists

    values = posted(fields, new=True)
    try:
        tenant = create(tenant_id, values)
    except (InvalidInput, TenantExists) as exc:
        recorded(signed, "tenant.created", tenant_id[:64], target(tenant_id[:64]), "create", outcome="failure",
                 reason=INVALID if isinstance(exc, InvalidInput) else "exists")
        raise ApiError("invalid_request", str(exc)) from None
    recorded(signed, "tenant.created", tenant.tenant_id, target(tenant.tenant_id), "create", **plain(given(values)))
    return done(request, signed, title=f"Tenant {tenant.tenant_id} created", said=said(tenant, "created"),
                back=Link(url(request, "tenant", [("tenant", tenant.tenant_id)]), f"The settings of {tenant.tenant_id}"),
                current="tenants")
