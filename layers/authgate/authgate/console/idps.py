"""GET /console/idps?tenant=T: the identity providers of one tenant (`authgate idps list`), each a link to its page.

Allowed by `idps.view` (operators.roles: owner, admin, auditor), judged before anything is read; the tenants offered
are those the rule reaches. An operator who may change them (`idps.change`) is offered to add one: an OpenID
Provider, Google, Apple, or a SAML IdP (console.idp_form).
"""

from __future__ import annotations

import html

from authgate.console.pages import (
    Link,
    chosen_tenant,
    links,
    page,
    table,
    tenant_picker,
    url,
)
from authgate.console.session import SignedIn
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.identity_providers.model import IdentityProvider
from authgate.operators import roles

# The kinds of IdP the console adds: the create page's `kind`, and what its link says.
KINDS = {"oidc": "Add an OpenID Connect provider", "google": "Add Google", "apple": "Add Sign in with Apple",
         "saml": "Add a SAML 2.0 provider", "idjag": "Add an issuer of ID-JAGs only"}


def get_idps(request: Request, signed: SignedIn) -> Response:
    tenants, tenant = chosen_tenant(request, signed, "idps.view")
    from authgate.stores.identity_providers import IdentityProviderStore

    found = sorted(IdentityProviderStore().of_tenant(tenant), key=lambda i: i.issuer)
    body = tenant_picker(request, "idps", tenants, tenant, "Show") + "\n" + _listed(request, tenant, found)
    if roles.may(signed.operator.roles, "idps.change", tenant):
        body += "\n" + links(Link(url(request, "idp-create", [("tenant", tenant), ("kind", kind)]), said)
                             for kind, said in KINDS.items())
    return page(request, signed, "Identity providers", body, current="idps")


def _listed(request: Request, tenant: str, found: list[IdentityProvider]) -> str:
    if not found:
        return f'<p role="status">Tenant {html.escape(tenant)} trusts no identity provider.</p>'
    return table(f"Identity providers of {tenant}",
                 ("ID", "Label", "Issuer", "Protocol", "Sign-in", "Domains", "Keys", "Create users"),
                 ((Link(link(request, i), i.idp_id or i.issuer), i.label or "-", i.issuer, i.protocol or "id-jag",
                   "yes" if i.sign_in else "no", ", ".join(i.domains) or "-", keys(i),
                   "yes" if i.create_users else "no") for i in found))


def keys(idp: IdentityProvider) -> str:
    """Where its signing keys are, as `authgate idps list` says."""
    if idp.jwks_uri:
        return idp.jwks_uri
    return f"{len(idp.jwks)} key{'s' if len(idp.jwks) != 1 else ''} inline" if idp.jwks else "discovery"


def link(request: Request, idp: IdentityProvider, page_name: str = "idp") -> str:
    """The URL of an IdP's page (or of `page_name`'s, which names an IdP the same way): by its id, else its issuer."""
    named = ("idp_id", idp.idp_id) if idp.idp_id else ("issuer", idp.issuer)
    return url(request, page_name, [("tenant", idp.tenant_id), named])
