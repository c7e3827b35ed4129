"""GET /console/idp?tenant=T&idp_id=I (or &issuer=URL): one identity provider as `authgate idps show` prints it, and
what to register at the IdP for authgate.

Allowed by `idps.view` in the IdP's tenant (operators.roles), judged before the record is read. Never a secret: a
client secret or Apple key is shown as set or not; a SAML IdP's certificates by their SHA-256 fingerprint and expiry.
The URIs are under this request's issuer (administration.identity_providers.view).
"""

from __future__ import annotations

from typing import Any

from authgate.console.idps import keys, link
from authgate.console.pages import Link, allow, definitions, links, page, query_value, section, when
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.identity_providers.model import IdentityProvider
from authgate.issuer import base_url
from authgate.operators import roles

# What to register at the IdP: the view's field, and its name at the IdP.
REGISTER = (("redirect_uri", "Redirect URI"), ("post_logout_redirect_uri", "Post-logout redirect URI"),
            ("backchannel_logout_uri", "Back-channel logout URI"), ("sp_entity_id", "SP entity ID (audience)"),
            ("sp_acs_url", "Assertion Consumer Service (HTTP-POST)"),
            ("sp_slo_url", "Single Logout Service (HTTP-Redirect)"), ("sp_metadata_url", "SP metadata"))


def get_idp(request: Request, signed: SignedIn) -> Response:
    tenant, idp_id, issuer = named(request)
    allow(signed, "idps.view", tenant)
    idp = found(tenant, idp_id, issuer)
    body = definitions_of(request, idp) + "\n" + _actions(request, signed, idp)
    return page(request, signed, f"{idp.label or idp.idp_id or idp.issuer} ({tenant})", body, current="idps")


def definitions_of(request: Request, idp: IdentityProvider) -> str:
    """The record, and what to register at the IdP for authgate at this request's issuer (HTML)."""
    from authgate.administration.identity_providers import view

    shown = view(idp, base_url(request))
    return "\n".join((definitions("Identity provider", record(idp)),
                      definitions("Register at the identity provider",
                                  [(name, str(shown[field])) for field, name in REGISTER if shown.get(field)],
                                  empty="Nothing: it is not offered for sign-in.")))


def named(request: Request) -> tuple[str, str, str]:
    """The tenant and the IdP's id or issuer the query names; 400 when it names none."""
    tenant, idp_id, issuer = (query_value(request, "tenant", 64), query_value(request, "idp_id", 32),
                              query_value(request, "issuer", 500))
    if not tenant or not (idp_id or issuer):
        raise ApiError("invalid_request", "Name the identity provider with tenant and idp_id (or issuer).")
    return tenant, idp_id, issuer


def found(tenant: str, idp_id: str, issuer: str) -> IdentityProvider:
    """The IdP of `tenant` with id `idp_id` (or, without one, `issuer`); 404 when there is none."""
    from authgate.stores.identity_providers import IdentityProviderStore

    match = next((i for i in IdentityProviderStore().of_tenant(tenant)
                  if (i.idp_id == idp_id if idp_id else i.issuer == issuer)), None)
    if match is None:
        raise unknown(tenant, idp_id or issuer)
    return match


def unknown(tenant: str, name: str) -> ApiError:
    return ApiError("not_found", f"Tenant {tenant!r} trusts no identity provider {name!r}.")


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def record(idp: IdentityProvider) -> list[tuple[str, str]]:
    """The record's fields as people read them (never a secret)."""
    saml = idp.saml or {}
    pairs = [("Protocol", {"oidc": "OpenID Connect", "saml": "SAML 2.0"}.get(idp.protocol, "ID-JAG only")),
             ("Entity ID" if saml else "Issuer", idp.issuer), ("ID", idp.idp_id or "-"), ("Label", idp.label or "-"),
             ("Domains", ", ".join(idp.domains) or "-"), ("Offered for sign-in", _yes(idp.sign_in))]
    if idp.protocol == "oidc":
        pairs += [("Client ID", idp.client_id), ("Client secret", "set" if idp.client_secret else "not set"),
                  ("Scopes", idp.requested_scopes)]
        pairs += [("Preset", idp.preset)] if idp.preset else []
        pairs += [("Apple team and key", f"{idp.apple_team_id} {idp.apple_key_id}, private key "
                   + ("set" if idp.apple_private_key else "not set"))] if idp.preset == "apple" else []
    if saml:
        pairs += [("Sign-on service", saml.get("sso_url") or "-"), ("Logout service", saml.get("slo_url") or "-"),
                  ("NameID format", saml.get("name_id_format") or "-"),
                  ("Metadata URL", saml.get("metadata_url") or "given as a document")]
        pairs += [(f"Certificate {n}", certificate(pem)) for n, pem in enumerate(saml.get("certificates", ()), 1)]
    pairs += [("Keys", keys(idp)), ("User match", idp.user_match), ("Create users", _yes(idp.create_users)), ("Trust email", _yes(idp.trust_email)),
              ("Trust MFA", " ".join(idp.mfa_values) if idp.trust_mfa else "no"), ("Step-up", idp.step_up),
              ("Claim mapping", " ".join(f"{k}={v}" for k, v in idp.claims) or "the defaults"),
              ("Created", when(idp.created_at))]
    return pairs


def certificate(pem: str) -> str:
    """A certificate as an operator compares it with the IdP's: its SHA-256 fingerprint and when it expires."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes

    cert: Any = x509.load_pem_x509_certificate(pem.encode("ascii"))
    fingerprint = cert.fingerprint(hashes.SHA256()).hex(":").upper()
    return f"SHA-256 {fingerprint}, expires {when(int(cert.not_valid_after_utc.timestamp()))}"


def _actions(request: Request, signed: SignedIn, idp: IdentityProvider) -> str:
    if not roles.may(signed.operator.roles, "idps.change", idp.tenant_id):
        return ""
    return section("Actions", links([Link(link(request, idp, "idp-update"), "Change"),
                                     Link(link(request, idp, "idp-delete"), "Delete")]))
