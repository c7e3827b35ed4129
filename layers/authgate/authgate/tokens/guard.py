"""A protected route's bearer check (RFC 6750, RFC 9068 section 4, DPoP RFC 9449 7): request in, Principal out.

The checks, in order, and their errors: docs/tokens-and-keys.md ("The bearer guard"), docs/dpop.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from authgate import clock
from authgate.clients.model import FAPI2
from authgate.errors import ApiError
from authgate.errors.challenges import StepUp
from authgate.errors.challenges import resource as resource_challenge
from authgate.issuer import base_url
from authgate.request_protocol import ERROR_FORMATS
from authgate.settings import get_settings
from authgate.stores import client_cache
from authgate.stores.batch import BatchRead
from authgate.stores.clients import ClientStore
from authgate.stores.revocations import RevocationStore
from authgate.tenants.errors import StrongAuthenticationRequired
from authgate.tokens import dpop, dpop_nonce
from authgate.tokens.bearer import extract_credentials, insufficient_scope, invalid_token
from authgate.tokens.jws import segment_json
from authgate.tokens.jwt_profile import FAPI2_ALGORITHMS, default_audience, resource_metadata_url
from authgate.tokens.validator import MAX_TOKEN_LENGTH, default_validator

if TYPE_CHECKING:
    from authgate.request_protocol import RequestView
    from authgate.tokens.principal import Principal

T = TypeVar("T")


def require_bearer(request: RequestView, scope: str, *, audience: str | None = None) -> Principal:
    """The request's principal if its bearer token is valid and carries `scope`, else ApiError."""
    principal, _ = require_bearer_with(request, scope, lambda principal, reads: None, audience=audience)
    return principal


def require_bearer_with(request: RequestView, scope: str, prefetch: Callable[[Principal, BatchRead], T], *,
                        audience: str | None = None, any_audience: bool = False,
                        form_body: bool = False) -> tuple[Principal, T]:
    """`require_bearer`, plus the route's own reads in the same BatchGetItem.

    `prefetch(principal, reads)` registers keys once the token is known good locally (so the
    tenant and client are known) and returns its handle; the batch runs after it, and the
    handle is returned with the principal. `any_audience`: a token of this issuer for any
    resource (the issuer's own endpoint, UserInfo; its challenges then name no resource
    metadata); `audience`: another resource than the charges API (its challenges name no
    resource metadata either: the charges API's is the one document served); `form_body`: the
    token may come in a POSTed form (RFC 6750 2.2).
    """
    try:
        return _require(request, scope, prefetch, audience, any_audience, form_body)
    except ApiError as error:
        if error.code in CHALLENGED:
            _challenge(error, request, scope, not any_audience and audience is None)
        raise


# The failures of a resource's authentication that carry its challenges (RFC 6750 3, RFC 9449 7.1).
CHALLENGED = frozenset({"unauthenticated", "invalid_request", "invalid_token", "insufficient_scope",
                        "invalid_dpop_proof", "use_dpop_nonce"})


def _challenge(error: ApiError, request: RequestView, scope: str, resource_metadata: bool = True,
               step_up: StepUp | None = None) -> None:
    """Both challenges, the error on the scheme the request used; DPoP failures are 401 here (RFC 9449 7.1)."""
    authorization = request.headers.get("authorization") or ""
    scheme = "dpop" if authorization.strip().lower().startswith("dpop ") else "bearer"
    if error.code in ("invalid_dpop_proof", "use_dpop_nonce"):
        scheme, error.status = "dpop", 401
    code = None if error.code == "unauthenticated" else error.code
    error.headers["WWW-Authenticate"] = resource_challenge(
        scheme, dpop.ALGORITHMS, code, error.detail, scope if error.code == "insufficient_scope" else None,
        resource_metadata_url(base_url(request)) if resource_metadata else None, step_up)


def step_up_challenge(error: ApiError, request: RequestView, weak: StrongAuthenticationRequired) -> ApiError:
    """The 401 insufficient_user_authentication of an accepted token whose sign-in is too weak or too old for the
    operation (RFC 9470 3): `acr_values` and `max_age` on the challenge of the scheme the request used."""
    _challenge(error, request, "", step_up=StepUp(weak.acr_values, weak.max_age))
    return error


def _require(request: RequestView, scope: str, prefetch: Callable[[Principal, BatchRead], T],
             audience: str | None, any_audience: bool = False, form_body: bool = False) -> tuple[Principal, T]:
    scheme, token = extract_credentials(request, form_body=form_body)
    issuer = base_url(request)
    now = clock.seconds()
    if any_audience:
        # The claimed aud, unverified: the signature, the issuer and every other claim still are.
        audience = _claimed_audience(token)
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
    request.context.error_format = error_format if error_format in ERROR_FORMATS else "problem"
    # After the client's error format is known, so a proof failure is rendered in the client's shape.
    fapi2 = client.profile() == FAPI2
    proof = _proof(request, scheme, token, principal, issuer, now, fapi2)
    if proof is not None:
        try:
            dpop.use_once(proof, get_settings().leeway, now)
        except dpop.ProofError as failed:
            raise ApiError(failed.code, failed.detail) from None
    required = scope.split()
    if any(s not in principal.scopes for s in required):
        raise insufficient_scope(" ".join(required))
    return principal, extra


def _claimed_audience(token: str) -> str | None:
    """The first audience a token claims (None: not a JWT, or no string audience: the validator says why)."""
    parts = token.split(".")
    claimed = (segment_json(parts[1]) or {}).get("aud") if len(parts) == 3 and len(token) <= MAX_TOKEN_LENGTH else None
    if isinstance(claimed, list):
        claimed = claimed[0] if claimed else None
    return claimed if isinstance(claimed, str) else None


def _proof(request: RequestView, scheme: str, token: str, principal: Principal, issuer: str,
           now: int, fapi2: bool) -> dpop.Proof | None:
    """The request's DPoP proof for a bound token (RFC 9449 7.1), checked but not yet spent; None for Bearer."""
    if principal.jkt is None:
        if scheme == "dpop":
            raise invalid_token("The access token is not DPoP-bound; send it as Authorization: Bearer.")
        return None
    if scheme != "dpop":
        raise invalid_token("The access token is DPoP-bound: send it as Authorization: DPoP with a DPoP proof "
                            "(RFC 9449 7.1).")
    try:
        header = dpop.proof_header(request)
        if header is None:
            raise dpop.ProofError("The request carries no DPoP proof; a DPoP-bound token needs one (RFC 9449 7.1).")
        proof = dpop.check_proof(header, method=request.method, uri=issuer + request.path, now=now,
                                 leeway=get_settings().leeway, access_token=token, nonce=dpop_nonce.checker(),
                                 algorithms=FAPI2_ALGORITHMS if fapi2 else dpop.ALGORITHMS)
    except dpop.ProofError as failed:
        raise ApiError(failed.code, failed.detail, headers=dpop_nonce.error_headers(failed.code, now)) from None
    if proof.jkt != principal.jkt:
        raise ApiError("invalid_dpop_proof", "The DPoP proof's key is not the key the access token is bound to.")
    dpop_nonce.hand_out(request.context.response_headers, proof.nonce, now)
    return proof


def verify_access_token(token: str, *, issuer: str, audience: str | None = None) -> Principal:
    """Validate a bare token (no request), check it is not revoked and its client still exists (deleted,
    RFC 7592 2.3, or expired): introspection (RFC 7662), revocation. One strongly consistent BatchGetItem."""
    now = clock.seconds()
    principal = default_validator().validate(token, issuer=issuer, audience=audience or default_audience(issuer),
                                             now=now)
    reads = BatchRead(operation="introspection.batch_get")
    revocation = RevocationStore().prefetch(reads, principal.jti, principal.grant_id)
    clients = ClientStore()
    client = clients.prefetch(reads, principal.client_id)
    reads.run()
    if revocation.revoked(now):
        raise invalid_token("The access token was revoked.")
    if clients.found(client) is None:
        raise invalid_token("The client this token was issued to is not registered.",
                            internal=f"client_id={principal.client_id}")
    return principal


def active_access_token(token: str, *, issuer: str, audience: str | None = None) -> Principal | None:
    """The principal of `token` if it is a currently valid access token for `audience` (None: for the
    resource it names, RFC 8707), else None (RFC 7662, RFC 7009).

    Storage failures still raise (503): "not active" must never stand in for "could not check".
    """
    if token.count(".") != 2:
        return None
    if audience is None:
        claimed = (segment_json(token.split(".")[1]) or {}).get("aud")
        if not isinstance(claimed, str):
            return None
        audience = claimed  # the signature and every other claim are still verified
    try:
        return verify_access_token(token, issuer=issuer, audience=audience)
    except ApiError as exc:
        if exc.code != "invalid_token":
            raise
        return None
