"""POST /console/idp-create and /console/idp-update, GET and POST /console/idp-delete: the identity provider actions.

Each asks operators.roles first (`idps.change` in the form's tenant), whatever the form says, then calls
authgate.administration.identity_providers, the one implementation `authgate idps` calls too: the same checks,
the same messages (a refusal is the 400 page with the command's sentence), the SAML metadata fetched under the same
outbound rules. A delete is confirmed first (what stops working). Each is the command's audit event (idp.created,
idp.changed, idp.deleted), by the operator, naming their roles and the fields given, never a secret's value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from authgate import audit
from authgate.administration.identity_providers import Given, Refused
from authgate.audit.actions import Action as AuditAction
from authgate.console import idp_form, idp_given
from authgate.console.idp import definitions_of, found, named, unknown
from authgate.console.idps import link
from authgate.console.pages import STEP, Link, allow, confirmation, done, recorded, url
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.identity_providers.errors import IdentityProviderNotFound
from authgate.identity_providers.model import IdentityProvider
from authgate.interaction.pages import form_fields
from authgate.operators.input import InvalidInput


def post_create(request: Request, signed: SignedIn) -> Response:
    fields = form_fields(request, STEP)
    tenant, kind = fields.get("tenant", ""), fields.get("kind", "")
    allow(signed, "idps.change", tenant or None)
    idp_form.kind_of(kind)
    idp_form.tenant_exists(tenant)
    from authgate.administration.identity_providers import create

    idp = _taken(signed, "idp.created", "create", tenant, fields.get("issuer", ""),
                 lambda: _given(fields, kind), create)
    return done(request, signed, title=f"Added: {idp.label or idp.issuer} ({tenant})",
                said=f"tenant {tenant} trusts {idp.issuer} as {idp.idp_id or 'an ID-JAG issuer'}",
                back=Link(link(request, idp), f"Open {idp.label or idp.issuer}"), current="idps",
                more=definitions_of(request, idp))


def post_update(request: Request, signed: SignedIn) -> Response:
    fields = form_fields(request, STEP)
    tenant, issuer = _posted(fields)
    allow(signed, "idps.change", tenant)
    from authgate.administration.identity_providers import update

    idp = _taken(signed, "idp.changed", "update", tenant, issuer,
                 lambda: _update_given(tenant, issuer, fields),
                 lambda t, given, secrets: update(t, issuer, given, secrets))
    return done(request, signed, title=f"Changed: {idp.label or idp.issuer} ({tenant})",
                said=f"identity provider {idp.issuer} of tenant {tenant} changed",
                back=Link(link(request, idp), f"Open {idp.label or idp.issuer}"), current="idps",
                more=definitions_of(request, idp))


def get_delete(request: Request, signed: SignedIn) -> Response:
    tenant, idp_id, issuer = named(request)
    allow(signed, "idps.change", tenant)
    idp = found(tenant, idp_id, issuer)
    name = idp.label or idp.issuer
    return confirmation(
        request, signed, title=f"Delete {name} ({tenant})?",
        does=(f"Tenant {tenant} stops trusting {idp.issuer}: the button \"Sign in with {name}\" and its email domains "
              "leave the sign-in pages, sign-ins and ID-JAGs from it are refused from now on, and people who sign in "
              "only through it can no longer sign in." if idp.sign_in else
              f"Tenant {tenant} stops trusting {idp.issuer}: its ID-JAGs are refused from now on."),
        target="idp-delete", fields=(("tenant", tenant), ("issuer", idp.issuer)), label="Delete",
        cancel=Link(link(request, idp), "Cancel"), current="idps")


def post_delete(request: Request, signed: SignedIn) -> Response:
    fields = form_fields(request, STEP)
    tenant, issuer = _posted(fields)
    allow(signed, "idps.change", tenant)
    from authgate.administration.identity_providers import delete

    try:
        said = delete(tenant, issuer)
    except IdentityProviderNotFound:
        _recorded(signed, "idp.deleted", "delete", tenant, issuer, "failure", "unknown_idp")
        raise unknown(tenant, issuer) from None
    _recorded(signed, "idp.deleted", "delete", tenant, issuer)
    return done(request, signed, title=f"Deleted: {issuer} ({tenant})", said=said,
                back=Link(url(request, "idps", [("tenant", tenant)]), "Back to the identity providers"),
                current="idps")


def _given(fields: dict[str, str], kind: str) -> tuple[Given, dict[str, str]]:
    return idp_given.created_given(fields, kind), idp_given.secrets(fields)


def _update_given(tenant: str, issuer: str, fields: dict[str, str]) -> tuple[Given, dict[str, str]]:
    """What the update form gives of the IdP as it is now (its protocol says which fields the form has)."""
    from authgate.stores.identity_providers import IdentityProviderStore

    idp = IdentityProviderStore().get(tenant, issuer)
    if idp is None:
        raise IdentityProviderNotFound(issuer)
    return idp_given.updated_given(fields, idp), idp_given.secrets(fields)


def _taken(signed: SignedIn, action: AuditAction, console_action: str, tenant: str, issuer: str,
           given: Callable[[], tuple[Given, dict[str, str]]],
           act: Callable[[str, Given, dict[str, str]], IdentityProvider]) -> IdentityProvider:
    """`act` on what the form gives, recorded as `action` whether it is taken or refused (the refusal: 400 or 404)."""
    named_fields: list[str] = []
    try:
        what, secrets = given()
        named_fields = sorted([k for k, v in what._asdict().items()
                               if v is not None and (k not in ("no_domains", "relink_by_email") or v)] + list(secrets))
        idp = act(tenant, what, secrets)
    except (InvalidInput, Refused) as exc:
        _recorded(signed, action, console_action, tenant, issuer, "failure",
                  "refused" if isinstance(exc, Refused) else "invalid_input", fields=named_fields)
        raise ApiError("invalid_request", str(exc)) from None
    except IdentityProviderNotFound:
        _recorded(signed, action, console_action, tenant, issuer, "failure", "unknown_idp", fields=named_fields)
        raise unknown(tenant, issuer) from None
    _recorded(signed, action, console_action, tenant, idp.issuer, fields=named_fields, idp_id=idp.idp_id)
    return idp


def _recorded(signed: SignedIn, action: AuditAction, console_action: str, tenant: str, issuer: str,
              outcome: Any = "success", reason: str | None = None, **details: Any) -> None:
    recorded(signed, action, tenant, audit.Party("idp", issuer or "-"), console_action, outcome=outcome,
             reason=reason, **details)


def _posted(fields: dict[str, str]) -> tuple[str, str]:
    tenant, issuer = fields.get("tenant", ""), fields.get("issuer", "")
    if not tenant or not issuer:
        raise ApiError("invalid_request", "Name the identity provider with tenant and issuer.")
    if len(tenant) > 64 or len(issuer) > 500 or any(ord(c) < 32 for c in tenant + issuer):
        raise ApiError("invalid_request", "The tenant or issuer is too long or holds control characters.")
    return tenant, issuer
