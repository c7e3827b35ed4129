"""A protected route's bearer check (RFC 6750, RFC 9068 section 4): request in, Principal out.

Steps, in this order: the credentials (tokens.bearer), the token itself (tokens.validation,
local), then one BatchGetItem (stores.batch) for everything that needs storage: the token's
revocation ids, its client's record when the warm cache misses, and whatever the route asks to
read alongside (`prefetch`: the charge a GET returns, the idempotency record a POST may replay).
Then the verdicts: revoked or unknown client 401 invalid_token; the client's error format goes
into the request context (so a 403 is rendered in the client's shape); missing scope 403
insufficient_scope. A proof of possession (DPoP, RFC 9449 7) is one more step here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar, cast

from authgate import clock
from authgate.errors import ApiError
from authgate.http.issuer import base_url
from authgate.stores import client_cache
from authgate.stores.batch import BatchRead
from authgate.stores.revocations import RevocationStore
from authgate.tokens.bearer import extract_token, insufficient_scope, invalid_token
from authgate.tokens.profile import default_audience
from authgate.tokens.validation import default_validator

if TYPE_CHECKING:
    from authgate.http.context import ErrorFormat
    from authgate.http.request import Request
    from authgate.tokens.principal import Principal

T = TypeVar("T")
ERROR_FORMATS = ("problem", "legacy-a", "legacy-b")


def require_bearer(request: Request, scope: str, *, audience: str | None = None) -> Principal:
    """The request's principal if its bearer token is valid and carries `scope`, else ApiError."""
    principal, _ = require_bearer_with(request, scope, lambda principal, reads: None, audience=audience)
    return principal


def require_bearer_with(request: Request, scope: str, prefetch: Callable[[Principal, BatchRead], T], *,
                        audience: str | None = None) -> tuple[Principal, T]:
    """`require_bearer`, plus the route's own reads in the same BatchGetItem.

    `prefetch(principal, reads)` registers keys once the token is known good locally (so the
    tenant and client are known) and returns its handle; the batch runs after it, and the
    handle is returned with the principal.
    """
    token = extract_token(request)
    issuer = base_url(request)
    now = clock.seconds()
    principal = default_validator().validate(token, issuer=issuer, audience=audience or default_audience(issuer),
                                             now=now)
    reads = BatchRead(operation="resource.batch_get")
    revocation = RevocationStore().prefetch(reads, principal.jti, principal.grant_id)
    client = client_cache.lookup(reads, principal.client_id)
    extra = prefetch(principal, reads)
    reads.run()
    if revocation.revoked(now):
        raise invalid_token("The access token was revoked.")
    error_format = client.error_format()
    if error_format is None:
        raise invalid_token("The client this token was issued to is not registered.",
                            internal=f"client_id={principal.client_id}")
    request.context.error_format = cast("ErrorFormat", error_format if error_format in ERROR_FORMATS else "problem")
    required = scope.split()
    if any(s not in principal.scopes for s in required):
        raise insufficient_scope(" ".join(required))
    return principal, extra


def verify_access_token(token: str, *, issuer: str, audience: str | None = None) -> Principal:
    """Validate a bare token (no request) and check it is not revoked: introspection (RFC 7662), tools."""
    now = clock.seconds()
    principal = default_validator().validate(token, issuer=issuer, audience=audience or default_audience(issuer),
                                             now=now)
    if RevocationStore().is_revoked(principal.jti, principal.grant_id, now):
        raise invalid_token("The access token was revoked.")
    return principal


def active_access_token(token: str, *, issuer: str) -> Principal | None:
    """The principal of `token` if it is a currently valid access token, else None (RFC 7662, RFC 7009).

    Storage failures still raise (503): "not active" must never stand in for "could not check".
    """
    if token.count(".") != 2:
        return None
    try:
        return verify_access_token(token, issuer=issuer)
    except ApiError as exc:
        if exc.code != "invalid_token":
            raise
        return None
