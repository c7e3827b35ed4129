"""DPoP at the token endpoint (RFC 9449 5): the request's proof checked once, before any grant runs.

No proof: the token is a Bearer token, unless the client registered `dpop_bound_access_tokens`
(RFC 9449 5.2) or is on the fapi2 profile (authgate.oauth.clients.profile), which makes a missing proof `invalid_dpop_proof`. A proof that fails any check of
RFC 9449 4.3 is `invalid_dpop_proof` (400, RFC 9449 5.0), or `use_dpop_nonce` with a fresh
`DPoP-Nonce` header when the deployment asks for nonces (RFC 9449 8). The proof's `jti` is spent
here, before the grant consumes a code or rotates a refresh token, so a replayed proof changes
nothing. The htu is the issuer base URL plus the request path: behind API Gateway that is the
URL the client called (the stage is part of the base).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.errors import ApiError
from authgate.issuer import base_url
from authgate.oauth.clients.profile import is_fapi2, requires_dpop
from authgate.settings import get_settings
from authgate.tokens import dpop, dpop_nonce
from authgate.tokens.jwt_profile import FAPI2_ALGORITHMS

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.http.request import Request

def token_proof(request: Request, client: Client, now: int) -> dpop.Proof | None:
    """The request's verified, now spent, DPoP proof; None for a Bearer request; ApiError otherwise."""
    try:
        header = dpop.proof_header(request)
        if header is None:
            if requires_dpop(client):
                raise dpop.ProofError("This client's access tokens must be DPoP-bound: send a DPoP proof "
                                      "(RFC 9449 5.2).")
            return None
        leeway = get_settings().leeway
        proof = dpop.check_proof(header, method=request.method, uri=base_url(request) + request.path, now=now,
                                 leeway=leeway, nonce=dpop_nonce.checker(),
                                 algorithms=FAPI2_ALGORITHMS if is_fapi2(client) else dpop.ALGORITHMS)
        dpop.use_once(proof, leeway, now)
    except dpop.ProofError as failed:
        raise proof_error(failed, now) from None
    dpop_nonce.hand_out(request.context.response_headers, proof.nonce, now)
    return proof


def proof_error(failed: dpop.ProofError, now: int) -> ApiError:
    """The token endpoint's answer to a bad proof: 400 in OAuth JSON, with DPoP-Nonce when one is due."""
    return ApiError(failed.code, failed.detail, headers=dpop_nonce.error_headers(failed.code, now))
