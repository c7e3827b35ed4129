"""GET /console/idp-create?tenant=T&kind=K and /console/idp-update?tenant=T&idp_id=I: the forms that add an identity
provider (an OpenID Provider, Google, Apple, a SAML 2.0 IdP by its metadata, or an issuer trusted for ID-JAGs only) or
change one.

Allowed by `idps.change` in the tenant (operators.roles: owner, admin), judged before anything is read. What each form
asks for is console.idp_fields' (what `authgate idps create|update` takes, under the same names); console.idp_actions
posts it, and console.idp_given reads what it gives.
"""

from __future__ import annotations

from collections.abc import Sequence

from authgate.console.idp import found, named
from authgate.console.idp_fields import changeable, creating
from authgate.console.idps import KINDS, link
from authgate.console.pages import Link, allow, form_page, query_value, url
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response


def get_create(request: Request, signed: SignedIn) -> Response:
    tenant, kind = query_value(request, "tenant", 64), query_value(request, "kind", 16)
    allow(signed, "idps.change", tenant or None)
    kind_of(kind)
    tenant_exists(tenant)
    return _form(request, signed, f"{KINDS[kind]} ({tenant})", "idp-create", [("tenant", tenant), ("kind", kind)],
                 creating(kind), "Add", Link(url(request, "idps", [("tenant", tenant)]), "Cancel"))


def get_update(request: Request, signed: SignedIn) -> Response:
    tenant, idp_id, issuer = named(request)
    allow(signed, "idps.change", tenant)
    idp = found(tenant, idp_id, issuer)
    return _form(request, signed, f"Change {idp.label or idp.idp_id or idp.issuer} ({tenant})", "idp-update",
                 [("tenant", tenant), ("issuer", idp.issuer)], changeable(idp), "Save",
                 Link(link(request, idp), "Cancel"))


def kind_of(kind: str) -> str:
    """`kind`, when it is one the console adds; 400 otherwise."""
    if kind not in KINDS:
        raise ApiError("invalid_request", f"There is no kind {kind[:16]!r}: the kinds are {', '.join(KINDS)}.")
    return kind


def tenant_exists(tenant: str) -> None:
    from authgate.stores.tenants import TenantStore

    if not tenant or TenantStore().get(tenant) is None:
        raise ApiError("not_found", f"There is no tenant {tenant!r}.")


def _form(request: Request, signed: SignedIn, title: str, target: str, hidden: Sequence[tuple[str, str]],
          fields: list[str], button: str, cancel: Link) -> Response:
    return form_page(request, signed, title=title, target=target, inner="\n".join(fields) + "\n", label=button,
                     cancel=cancel, current="idps", hidden=hidden)
