"""The ID-JAG grant: RFC 7523 2.1 jwt-bearer with an Identity Assertion JWT Authorization Grant as the assertion
(draft-ietf-oauth-identity-assertion-authz-grant, "Access Token Request"; MCP Enterprise-Managed Authorization).

A confidential client (client secret or private_key_jwt; the draft's Security Considerations, "Client
Authentication") registered for the grant presents the ID-JAG its user's identity provider issued.
After the assertion's own rules (oauth.token.identity_assertion): its `resource` (RFC 8707; one URI
or an array) names the registered resource the token is for, and the request's `resource`, when
sent, must be one of them; the scopes are RFC 6749 3.3's: the request's `scope` within the
assertion's, all of them the resource's and none forbidden by the tenant; the person is found as a
federated sign-in's is, through the identity linked to (issuer, sub) first (oauth.token.id_jag_user),
provisioned when `--create-users` allows. Last, the `jti` is spent by one conditional write until the
assertion expires (RFC 7523 3 item 7).

The person's sign-in at the IdP, when the assertion states it (`auth_time`, `acr`, `amr`, which the draft
allows as in an ID token), goes into the token as RFC 9068 2.2.1 `auth_time` and `acr`, so RFC 9470 step-up
(the charges API's strong authentication) judges an agent's token as any other. As for every upstream
sign-in (federation.assurance), it is `mfa` only when the IdP's record trusts it for that (`--trust-mfa`)
and the stated acr or an amr value is one of the record's values that mean it; any other statement is
`password`, and an assertion that states neither acr nor amr gives the token no acr.

No refresh token: the client presents a new ID-JAG when its token expires, so the IdP decides
again each time (the draft's refresh-token rules leave it to the server; authgate keeps the IdP
in charge).
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from authgate.caches import BoundedCache, cached
from authgate.errors import ApiError
from authgate.federation.assurance import level
from authgate.oauth.resource_indicator import resolve
from authgate.oauth.scopes import ScopeSyntaxError, parse_scope
from authgate.oauth.token import id_jag_user
from authgate.oauth.token.grants.base import (
    Grant,
    TokenRequest,
    TokenResult,
    issued,
    requested_scopes,
)
from authgate.oauth.token.identity_assertion import MAX_ASSERTION, IdJag, refused, verify
from authgate.settings import get_settings
from authgate.single_use.errors import Replayed
from authgate.stores.identity_provider_cache import trusted_idp
from authgate.stores.replay import ReplayGuard, id_jag_key
from authgate.stores.tenant_cache import get_tenant
from authgate.tokens.jws import segment_json
from authgate.users.model import token_subject

if TYPE_CHECKING:
    from authgate.resources.model import Resource

GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer"
# Clients whose tenant a warm function remembers (bounded: forged client ids may fill it, never grow it).
CLIENT_TENANTS = 1_000


def _resource(jag: IdJag, named: str | None) -> str:
    """The one resource the token is for: the request's, when the assertion lists it; else the assertion's only one."""
    claim = jag.claims.get("resource")
    listed = [claim] if isinstance(claim, str) else claim if isinstance(claim, list) else None
    if not listed or not all(isinstance(uri, str) and uri for uri in listed):
        raise refused("id_jag_resource_invalid", "The assertion names no resource (its resource claim, "
                                                 "RFC 8707 2) for the token.")
    if named is not None:
        if named not in listed:
            raise refused("id_jag_resource_invalid", "The resource parameter is not a resource the assertion "
                                                     "was issued for.")
        return named
    if len(listed) > 1:
        raise ApiError("invalid_target", "The assertion names several resources: name one with the resource "
                                         "parameter (RFC 8707 2).")
    return str(listed[0])


def _scopes(jag: IdJag, requested: tuple[str, ...] | None, resource: Resource, forbidden: frozenset[str]) -> tuple[str, ...]:
    """RFC 6749 3.3: the request's scope within the assertion's; each one the resource's and allowed by the tenant."""
    raw = jag.claims.get("scope")
    try:
        granted = parse_scope(raw) if isinstance(raw, str) else None
    except ScopeSyntaxError:
        granted = None
    if raw is not None and granted is None:
        raise refused("id_jag_malformed", "The assertion's scope is not a list of scope tokens (RFC 6749 3.3).")
    if requested is None:
        kept = tuple(s for s in (granted if granted is not None else resource.scopes)
                     if s in resource.scopes and s not in forbidden)
        if not kept:
            raise ApiError("invalid_scope", "None of the assertion's scopes is available for this resource.")
        return kept
    if not requested:
        raise ApiError("invalid_scope", "The scope parameter is empty.")
    for scope in requested:
        if granted is not None and scope not in granted:
            raise ApiError("invalid_scope", f"The scope {scope[:64]!r} exceeds the assertion's scope.")
        if scope not in resource.scopes:
            raise ApiError("invalid_scope", f"The scope {scope[:64]!r} is unknown.")
        if scope in forbidden:
            raise ApiError("invalid_scope", f"The scope {scope!r} is forbidden by the tenant.")
    return requested


def _assurance(jag: IdJag, now: int) -> tuple[str, int | None]:
    """(acr, auth_time) of the person's sign-in the assertion states ("", None when it states none): see the module."""
    claims = jag.claims
    auth_time, acr, amr = claims.get("auth_time"), claims.get("acr"), claims.get("amr")
    if auth_time is not None and (isinstance(auth_time, bool) or not isinstance(auth_time, (int, float))):
        raise refused("id_jag_malformed", "The assertion's auth_time is not a NumericDate (OIDC Core 2).")
    if acr is not None and not isinstance(acr, str):
        raise refused("id_jag_malformed", "The assertion's acr is not a string (OIDC Core 2).")
    if amr is not None and not (isinstance(amr, list) and all(isinstance(m, str) for m in amr)):
        raise refused("id_jag_malformed", "The assertion's amr is not an array of strings (RFC 8176).")
    if auth_time is not None and auth_time > now + get_settings().leeway:
        raise refused("id_jag_time_invalid", "The assertion's auth_time is in the future.")
    stated = level(jag.idp, acr or "", amr or ()) if acr or amr else ""
    return stated, int(auth_time) if auth_time is not None else None


@cached
def _client_tenants() -> BoundedCache[str, str]:
    """client_id -> its tenant, as last authenticated here: the guess that lets the user be read with the client."""
    return BoundedCache(CLIENT_TENANTS)


class JwtBearerGrant(Grant):
    GRANT_TYPE = GRANT_TYPE

    def __init__(self) -> None:
        self._guess: id_jag_user.Guess | None = None

    def prefetch(self, form: Mapping[str, str], client_id: str) -> dict[str, list[dict[str, Any]]]:
        """The assertion's person, read in the client's BatchGetItem: the link of (the client's tenant, the
        assertion's iss and sub), and the user it is guessed to name (oauth.token.id_jag_user). Before the
        client is read its tenant is the one it had at its last ID-JAG here (a client's tenant does not change
        once set); the claims are not verified yet. A wrong guess costs nothing but the usual reads later
        (exchange checks the keys against what it verified)."""
        tenant_id = _client_tenants().peek(client_id)
        assertion = form.get("assertion") or ""
        if not tenant_id or len(assertion) > MAX_ASSERTION or assertion.count(".") != 2:
            return {}
        claims = segment_json(assertion.split(".")[1])
        iss, sub = (claims or {}).get("iss"), (claims or {}).get("sub")
        if not (isinstance(iss, str) and iss and isinstance(sub, str) and sub):
            return {}
        idp = trusted_idp(tenant_id, iss)
        if idp is None:
            return {}
        keys, self._guess = id_jag_user.keys(tenant_id, idp, sub)
        return keys

    def exchange(self, req: TokenRequest) -> TokenResult:
        client = req.client
        if client.is_public:
            raise ApiError("unauthorized_client", "Only confidential clients may present an ID-JAG "
                                                  "(draft-ietf-oauth-identity-assertion-authz-grant, Security "
                                                  "Considerations).")
        assertion = req.param("assertion")
        requested = requested_scopes(req.form.get("scope"))
        jag = verify(assertion, client, req.issuer, req.now)
        resource = resolve(_resource(jag, req.resource), req.issuer, client.tenant_id)
        tenant = get_tenant(client.tenant_id)  # warm-cached for 60 s
        scopes = _scopes(jag, requested, resource, tenant.forbidden_scopes if tenant else frozenset())
        acr, auth_time = _assurance(jag, req.now)
        _client_tenants().put(client.client_id, client.tenant_id)
        user = id_jag_user.find(jag, client.tenant_id, req.prefetched, self._guess)
        try:
            # RFC 7523 3 item 7: single use until it expires (and the leeway it was judged with).
            ReplayGuard().use(id_jag_key(jag.idp.issuer, jag.jti), math.ceil(jag.expires_at) + get_settings().leeway,
                              now=req.now)
        except Replayed:
            raise refused("id_jag_replayed", "The assertion has already been used (RFC 7523 3).") from None
        return issued(req, subject=token_subject(user), tenant=client.tenant_id, scopes=scopes, username=user.username,
                      audience=resource.resource, acr=acr, auth_time=auth_time,
                      # A person's grant, made by their IdP: its own grant id, so the token is one of a user's
                      # (strong authentication applies to it, RFC 9470) and what is exchanged from it shares it.
                      grant_id=str(uuid.uuid4()))
