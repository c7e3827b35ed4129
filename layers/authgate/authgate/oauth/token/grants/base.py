"""What every grant shares: its input, its result and the tail that issues it, and scope checks (RFC 6749 §3.3, §5.1)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from authgate import audit
from authgate.errors import ApiError
from authgate.oauth.resource_indicator import client_may_request
from authgate.oauth.scopes import IDENTITY_SCOPES, ScopeSyntaxError, format_scope, parse_scope
from authgate.oauth.token.id_token import issue_id_token
from authgate.tokens.access_token import issue_access_token

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.http.request import Request
    from authgate.resources.model import Resource
    from authgate.single_use.authentication import Authentication
    from authgate.tenants.model import Tenant


@dataclass
class TokenRequest:
    """An authenticated client's token request."""

    form: Mapping[str, str]
    client: Client
    issuer: str
    now: int
    # The verified DPoP proof's key thumbprint (RFC 9449 5): the access token's cnf.jkt.
    dpop_jkt: str | None = None
    # The resource the token request names (RFC 8707 2), already checked: the token's audience.
    resource: str | None = None
    # The items `Grant.prefetch` asked for, read with the client (by table; absent items are not listed).
    prefetched: Mapping[str, list[dict[str, Any]]] = field(default_factory=dict)

    def param(self, name: str) -> str:
        """A required parameter, or invalid_request (RFC 6749 5.2)."""
        value = self.form.get(name)
        if value is None:
            raise ApiError("invalid_request", f"The {name} parameter is required.")
        return value


class TokenResult(NamedTuple):
    """The successful response (RFC 6749 5.1)."""

    access_token: str
    expires_in: int
    scope: str
    refresh_token: str | None = None
    # "DPoP" when the access token is bound to a DPoP key (RFC 9449 5).
    token_type: str = "Bearer"
    # OpenID Connect Core 3.1.3.3: with scope openid.
    id_token: str | None = None
    # A token exchange's response names the type of what it issued (RFC 8693 2.2.1).
    issued_token_type: str | None = None
    # RFC 9396 7: the authorization_details the access token carries.
    authorization_details: tuple[dict[str, Any], ...] | None = None

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {"access_token": self.access_token, "token_type": self.token_type,
                               "expires_in": self.expires_in, "scope": self.scope}
        if self.issued_token_type:
            out["issued_token_type"] = self.issued_token_type
        if self.refresh_token:
            out["refresh_token"] = self.refresh_token
        if self.id_token:
            out["id_token"] = self.id_token
        if self.authorization_details:
            out["authorization_details"] = list(self.authorization_details)
        return out


class Grant:
    GRANT_TYPE: ClassVar[str] = ""
    # RFC 9396 6: whether its token request may carry authorization_details (a grant a person approved them for).
    TAKES_DETAILS: ClassVar[bool] = False

    def allowed(self, client: Client) -> bool:
        """Whether the authenticated client may use this grant: its registration lists it (RFC 7591 2)."""
        return client.allows_grant(self.GRANT_TYPE)

    def before_authentication(self, request: Request, form: Mapping[str, str], client_id: str, method: str) -> None:
        """An answer that needs no client authentication, raised before the client is read (none by default)."""

    def prefetch(self, form: Mapping[str, str], client_id: str) -> dict[str, list[dict[str, Any]]]:
        """Keys of other tables this request will read, by table, to read with the client in its one BatchGetItem
        (none by default). A guess made before the client is known: the grant checks what it finds."""
        return {}

    def exchange(self, req: TokenRequest) -> TokenResult:
        raise NotImplementedError


def issued(req: TokenRequest, *, subject: str, tenant: str, scopes: tuple[str, ...], audience: str,
           grant_id: str | None = None, refresh_token: str | None = None,
           authentication: Authentication | None = None, nonce: str | None = None,
           acr: str = "", auth_time: int | None = None, expires_before: int | None = None,
           carried: Mapping[str, object] | None = None, issued_token_type: str | None = None,
           authorization_details: tuple[dict[str, Any], ...] | None = None, username: str = "") -> TokenResult:
    """Every grant's tail: the access token (RFC 9068), bound to the request's DPoP key if any, and the
    successful response (RFC 6749 5.1) with its token_type (RFC 9449 5: DPoP for a bound token, else
    Bearer, RFC 6750 4), the refresh token the grant started or rotated, and, when the token carries
    openid and the grant knows its sign-in, the ID token (OpenID Connect Core 3.1.3.3, 12.2).

    The access token states the user's sign-in behind the grant (`acr`, `auth_time`: RFC 9068 2.2.1)
    as the code or refresh family recorded it in `authentication`, or as given (the password grant). Its
    `authorization_details` (RFC 9396 9.1) are echoed in the response (7). A person's token has their user_id
    as `subject` and their `username` (tokens.access_token).

    Every token issued is recorded (token.issued, token.refreshed for the refresh grant: docs/audit.md), for
    the person the grant knows (`authentication`'s user, or the `subject` of a token with a `username`), else
    its subject."""
    if authentication is not None and authentication.acr:
        acr, auth_time = authentication.acr, authentication.auth_time
    token = issue_access_token(issuer=req.issuer, subject=subject, client_id=req.client.client_id, tenant=tenant,
                               scope=format_scope(scopes), grant_id=grant_id, jkt=req.dpop_jkt, audience=audience,
                               acr=acr, auth_time=auth_time, expires_before=expires_before, carried=carried,
                               authorization_details=authorization_details, username=username)
    id_token = None
    if "openid" in scopes and authentication is not None:
        id_token = issue_id_token(issuer=req.issuer, client_id=req.client.client_id, authentication=authentication,
                                  access_token=token.token, nonce=nonce, alg=req.client.id_token_alg)
    token_type = "DPoP" if req.dpop_jkt else "Bearer"
    _record_issued(req, subject, tenant, audience, token.jti, token_type, scopes, refresh_token is not None,
                   id_token is not None, authentication.user_id if authentication else subject if username else "",
                   username, carried, authorization_details)
    return TokenResult(token.token, token.expires_in, token.scope, refresh_token, token_type, id_token=id_token,
                       issued_token_type=issued_token_type, authorization_details=authorization_details)


def _record_issued(req: TokenRequest, subject: str, tenant: str, audience: str, jti: str, token_type: str,
                   scopes: tuple[str, ...], refresh: bool, id_token: bool, user_id: str, username: str,
                   carried: Mapping[str, object] | None, details: tuple[dict[str, Any], ...] | None) -> None:
    """The token.issued (or token.refreshed) event: never the token, its id (`jti`) and what it carries."""
    grant_type = req.form.get("grant_type", "")
    client_id = req.client.client_id
    if user_id:
        target = audit.user(user_id, username=username or None)
    elif subject == client_id:
        target = audit.client(client_id)
    else:  # a token exchange's subject, as its token names it
        target = audit.Party("subject", subject)
    facts: dict[str, Any] = {"grant_type": grant_type, "client_id": client_id, "scopes": list(scopes),
                             "resource": audience, "token_type": token_type, "jti": jti,
                             # With a refresh token, with an ID token (named so: "*token*" members are redacted).
                             "refreshable": refresh, "openid": id_token}
    if carried and "act" in carried:
        facts["act"] = carried["act"]
    if details:
        facts["authorization_details_types"] = sorted({str(d.get("type", "")) for d in details})
    audit.record("token.refreshed" if grant_type == "refresh_token" else "token.issued", tenant,
                 actor=audit.client(client_id), target=target, details=facts)


def check_key_binding(bound: str | None, presented: str | None, what: str) -> None:
    """A code or refresh token bound to a DPoP key needs a proof of that key (RFC 9449 5.0, 10.1):
    no proof is invalid_dpop_proof, a proof of another key invalid_grant (the grant is bound
    elsewhere, RFC 9449 5.8; node-oidc-provider answers the same)."""
    if bound is None:
        return
    if presented is None:
        raise ApiError("invalid_dpop_proof", f"This {what} is DPoP-bound: send a DPoP proof of its key.")
    if presented != bound:
        raise ApiError("invalid_grant", f"The DPoP proof's key is not the key this {what} is bound to.")


def requested_scopes(raw: str | None) -> tuple[str, ...] | None:
    """The `scope` parameter as tokens; None when absent; invalid_scope when malformed."""
    if raw is None:
        return None
    try:
        return parse_scope(raw)
    except ScopeSyntaxError:
        raise ApiError("invalid_scope", "The scope parameter is not a list of scope tokens (RFC 6749 3.3).") from None


def check_scopes(requested: tuple[str, ...] | None, client: Client, tenant: Tenant | None,
                 resource: Resource) -> tuple[str, ...]:
    """The granted scopes of a grant no person consents to (client_credentials, password): requested ones if
    all are the resource's, granted to the client and not forbidden; else the default.

    Absent scope means the resource's scopes the client was granted, minus the tenant's forbidden
    ones (RFC 6749 3.3: a documented default; RFC 8707 2: the resource brings its scopes).
    """
    forbidden = tenant.forbidden_scopes if tenant else frozenset()
    if requested is None:
        granted = tuple(s for s in resource.scopes if _refusal(s, client, forbidden, resource, consent=False) is None)
        if not granted:
            raise ApiError("invalid_scope", "No scope is available to this client.")
        return granted
    _check_each(requested, client, forbidden, resource, consent=False)
    return requested


def current_scopes(granted: tuple[str, ...], requested: tuple[str, ...] | None, client: Client,
                   tenant: Tenant | None, resource: Resource) -> tuple[str, ...]:
    """The scopes a token of a person's grant (code exchange, refresh) may carry now (RFC 6749 6).

    Requested ones must be the grant's (never wider) and still available; without `scope`, the
    grant's scopes less those since removed from the resource, forbidden by the tenant or withdrawn
    from the client. The grant itself keeps its scope (a refresh token's is unchanged, RFC 6749 6),
    so a scope allowed again comes back at the next refresh; nothing left is invalid_scope.
    """
    forbidden = tenant.forbidden_scopes if tenant else frozenset()
    if requested is not None:
        wider = [s for s in requested if s not in granted]
        if wider:
            raise ApiError("invalid_scope", f"The scope {wider[0][:64]!r} exceeds the original grant (RFC 6749 6).")
        _check_each(requested, client, forbidden, resource, consent=True)
        return requested
    kept = tuple(s for s in granted if _refusal(s, client, forbidden, resource, consent=True) is None)
    if not kept:
        raise ApiError("invalid_scope", "None of the scopes of this grant is available any more (removed from the "
                                        "resource, forbidden by the tenant or no longer allowed for the client); "
                                        "ask the user to authorize again.")
    return kept


def _check_each(requested: tuple[str, ...], client: Client, forbidden: frozenset[str], resource: Resource, *,
                consent: bool) -> None:
    for scope in requested:
        refused = _refusal(scope, client, forbidden, resource, consent=consent)
        if refused:
            raise ApiError("invalid_scope", refused)
    if not requested:
        raise ApiError("invalid_scope", "The scope parameter is empty.")


def _refusal(scope: str, client: Client, forbidden: frozenset[str], resource: Resource, *,
             consent: bool) -> str | None:
    """Why `scope` may not be in this token (RFC 6749 3.3, RFC 8707 2), or None. The OpenID Provider's own
    scopes (oauth.scopes.IDENTITY_SCOPES) come only from a person's grant to a client registered with them."""
    if scope in IDENTITY_SCOPES and consent:
        if scope not in client.scopes:
            return f"The scope {scope!r} is not allowed for this client."
        return f"The scope {scope!r} is forbidden by the tenant." if scope in forbidden else None
    if scope not in resource.scopes:
        return f"The scope {scope[:64]!r} is unknown."
    if not client_may_request(client, resource, scope, consent=consent):
        return f"The scope {scope!r} is not allowed for this client."
    if scope in forbidden:
        return f"The scope {scope!r} is forbidden by the tenant."
    return None

