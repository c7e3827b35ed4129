"""Token exchange (RFC 8693 §2): a resource server trades a token it received for a narrower one for another API.

Who may exchange what is the resource's decision (docs/delegation.md): the client is a registered
resource's own credentials (the introspection client `authgate resources create` made), the
subject token an active authgate access token whose `aud` is that resource, and the target
(`resource` or `audience`, §2.1) one of the resources it may delegate to
(`authgate resources update --may-delegate-to`). The new token keeps the subject token's `sub`,
`tenant`, `grant_id`, `acr`, `auth_time` and `username` (a token issued before `sub` became the
person's user_id keeps its username `sub`: it expires no later than the subject token), carries the scopes asked ∩ the subject token's ∩
the target's, expires no later than the subject token, and names who acts in `act` (§4.1),
nested per hop up to MAX_ACTORS. Its authorization_details (RFC 9396) go with it, and the
request may narrow them (6.2), never widen them. No refresh token (§2.2.1: none is needed to act for a token
that will itself expire). Errors are those of §2.2.2: a subject or actor token that is not
acceptable is invalid_request, a target that may not be served invalid_target.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from authgate.authorization_details.model import text
from authgate.errors import ApiError
from authgate.oauth import rich_authorization
from authgate.oauth.resource_indicator import requested_resource, resolve
from authgate.oauth.token.grants.base import (
    Grant,
    TokenRequest,
    TokenResult,
    issued,
    requested_scopes,
)
from authgate.stores.resource_cache import get_resource, introspected_by
from authgate.stores.tenant_cache import get_tenant
from authgate.tokens.guard import verify_access_token
from authgate.tokens.jws import segment_json
from authgate.tokens.jwt_profile import MAX_ACTORS, actor_depth

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.errors.codes import Code
    from authgate.resources.model import Resource
    from authgate.tokens.principal import Principal

GRANT_TYPE = "urn:ietf:params:oauth:grant-type:token-exchange"
# RFC 8693 3: the one token type exchanged and issued here.
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"
# Claims of the subject token the exchanged token keeps as they are (RFC 9068 2.2.1; the person's username).
KEPT_CLAIMS = ("acr", "auth_time", "username")


def _token_type(req: TokenRequest, name: str) -> None:
    value = req.param(name)
    if value != ACCESS_TOKEN_TYPE:
        raise ApiError("invalid_request", f"{name} must be {ACCESS_TOKEN_TYPE}: only authgate access tokens are "
                                          "exchanged here (RFC 8693 2.2.2).")


def _verified(token: str, what: str, req: TokenRequest, acting: Resource) -> Principal:
    """An active access token of this issuer whose audience is the acting resource, or §2.2.2 invalid_request."""
    code: Code = "subject_token_invalid" if what == "subject_token" else "actor_token_invalid"
    try:
        principal = verify_access_token(token, issuer=req.issuer, audience=acting.resource)
    except ApiError as refused:
        if refused.code != "invalid_token":
            raise
        raise ApiError(code, f"The {what} is not an active access token for {acting.resource[:200]}: "
                             f"{refused.detail}", oauth_error="invalid_request") from None
    if principal.expires_at <= req.now:
        raise ApiError(code, f"The {what} is not an active access token for {acting.resource[:200]}: "
                             "The access token expired.", oauth_error="invalid_request")
    return principal


def _target(req: TokenRequest) -> str | None:
    """The target service: `resource` and/or `audience` (RFC 8693 2.1), naming one registered resource."""
    audience = req.form.get("audience")
    named = requested_resource([audience], req.issuer) if audience is not None else None
    if named is not None and req.resource is not None and named != req.resource:
        raise ApiError("invalid_target", "resource and audience name different services; a token has one audience "
                                         "here (RFC 8707 2).")
    return req.resource or named


def _scopes(requested: tuple[str, ...] | None, subject: frozenset[str], target: Resource,
            forbidden: frozenset[str]) -> tuple[str, ...]:
    """What was asked ∩ what the subject token had ∩ what the target accepts, less the tenant's forbidden scopes."""
    if requested is None:
        kept = tuple(s for s in target.scopes if s in subject and s not in forbidden)
        if not kept:
            raise ApiError("invalid_scope", "None of the subject token's scopes is a scope of "
                                            f"{target.resource[:200]}.")
        return kept
    if not requested:
        raise ApiError("invalid_scope", "The scope parameter is empty.")
    for scope in requested:
        if scope not in subject:
            raise ApiError("invalid_scope", f"The scope {scope[:64]!r} exceeds the subject token's scope "
                                            "(RFC 8693 2.1: an exchange only narrows).")
        if scope not in target.scopes:
            raise ApiError("invalid_scope", f"The scope {scope[:64]!r} is unknown.")
        if scope in forbidden:
            raise ApiError("invalid_scope", f"The scope {scope!r} is forbidden by the tenant.")
    return requested


def _actor_chain(actor: dict[str, Any], subject: Principal) -> dict[str, Any]:
    """The new `act`: this hop's actor, the subject token's actors nested inside it (RFC 8693 4.1)."""
    chain = {**actor, "act": subject.act} if subject.act else actor
    if actor_depth(chain) > MAX_ACTORS:
        raise ApiError("delegation_too_deep", f"The subject token already names {actor_depth(subject.act)} actors; "
                                              f"a token names at most {MAX_ACTORS} (RFC 8693 4.1).",
                       oauth_error="invalid_request")
    return chain


class TokenExchangeGrant(Grant):
    GRANT_TYPE = GRANT_TYPE
    TAKES_DETAILS = True

    def allowed(self, client: Client) -> bool:
        """Only a registered resource's own credentials exchange tokens (docs/delegation.md); cached 60 s."""
        return introspected_by(client.client_id) is not None

    def exchange(self, req: TokenRequest) -> TokenResult:
        subject_token = req.param("subject_token")
        _token_type(req, "subject_token_type")
        if "requested_token_type" in req.form:
            _token_type(req, "requested_token_type")
        actor_token = req.form.get("actor_token")
        if (actor_token is None) != ("actor_token_type" not in req.form):
            raise ApiError("invalid_request", "actor_token and actor_token_type go together (RFC 8693 2.1).")
        if actor_token is not None:
            _token_type(req, "actor_token_type")
        requested = requested_scopes(req.form.get("scope"))
        named = _target(req)
        if named is None:
            raise ApiError("invalid_request", "Name the target service with resource or audience (RFC 8693 2.1).")

        serves = introspected_by(req.client.client_id)
        acting = get_resource(serves) if serves else None
        if acting is None:
            raise ApiError("unauthorized_client", "Only a registered resource's credentials may exchange tokens.")
        subject = _verified(subject_token, "subject_token", req, acting)
        if not acting.allows_tenant(subject.tenant):
            raise ApiError("subject_token_invalid", f"The subject_token belongs to a tenant "
                                                    f"{acting.resource[:200]} does not serve.",
                           oauth_error="invalid_request", internal=f"tenant={subject.tenant}")
        target = resolve(named, req.issuer, subject.tenant)
        if not acting.may_delegate(target.resource):
            raise ApiError("delegation_not_allowed", f"{acting.resource[:200]} may not exchange tokens for "
                                                     f"{target.resource[:200]} (authgate resources update "
                                                     "--may-delegate-to).", oauth_error="invalid_target")
        actor = {"sub": _verified(actor_token, "actor_token", req, acting).subject} if actor_token else \
            {"sub": acting.resource}
        act = _actor_chain(actor, subject)
        tenant = get_tenant(subject.tenant)  # warm-cached for 60 s
        scopes = _scopes(requested, subject.scopes, target, tenant.forbidden_scopes if tenant else frozenset())
        claims = segment_json(subject_token.split(".")[1]) or {}
        carried: dict[str, object] = {name: claims[name] for name in KEPT_CLAIMS if name in claims}
        carried["act"] = act
        # RFC 9396 6.2 (and 9.1): the subject token's details go with it, narrowed when the request names them.
        details = rich_authorization.for_token(req.form.get(rich_authorization.PARAMETER),
                                               text(subject.authorization_details), target, tenant, req.issuer)
        return issued(req, subject=subject.subject, tenant=subject.tenant, scopes=scopes, audience=target.resource,
                      grant_id=subject.grant_id, expires_before=subject.expires_at, carried=carried,
                      issued_token_type=ACCESS_TOKEN_TYPE, authorization_details=details)
