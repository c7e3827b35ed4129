"""An Identity Assertion JWT Authorization Grant (ID-JAG) checked as the Resource Authorization Server
(draft-ietf-oauth-identity-assertion-authz-grant 3 and "Access Token Request, Processing Rules";
RFC 7523 3; RFC 7521 5.2; MCP Enterprise-Managed Authorization extension 4.3).

In order, each failure `invalid_grant` with its own catalogue code: a compact JWS of at most
MAX_ASSERTION characters; header `typ` oauth-id-jag+jwt (RFC 8725 3.11); `alg` one an IdP may sign
with (RS256, PS256, ES256, EdDSA: never none or a MAC); `iss` an identity provider the client's
tenant trusts (`authgate idps`); the signature by one of that IdP's keys; `aud` authgate's
issuer identifier (RFC 7523 3 item 3); `client_id` the authenticated client; `exp` not passed
and at most MAX_LIFETIME ahead, `iat` present and not in the future (beyond the leeway); `sub`
and `jti` present. The `jti` is spent last, by the caller, once every other rule of the request
has held, so a refused request never burns an assertion.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, NamedTuple

from authgate.errors import ApiError
from authgate.settings import get_settings
from authgate.stores.identity_provider_cache import trusted_idp
from authgate.tokens import client_keys, jose_header, jwa
from authgate.tokens.idp_keys import KeysUnavailable, idp_key_cache
from authgate.tokens.jws import segment_bytes, segment_json
from authgate.tokens.numeric_date import numeric_date

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.errors.codes import Code
    from authgate.identity_providers.model import IdentityProvider

TYP = "oauth-id-jag+jwt"
MAX_ASSERTION = 16_384
# How far ahead an ID-JAG's exp may be: the draft's examples live 5 minutes; 10 leaves room for skew.
MAX_LIFETIME = 600
ALGORITHMS = tuple(client_keys.IDP_ALGORITHMS)


class IdJag(NamedTuple):
    """A verified ID-JAG: its IdP and its claims."""

    idp: IdentityProvider
    claims: dict[str, Any]

    @property
    def subject(self) -> str:
        return str(self.claims["sub"])

    @property
    def jti(self) -> str:
        return str(self.claims["jti"])

    @property
    def expires_at(self) -> int:
        return int(self.claims["exp"])


def refused(code: Code, detail: str, internal: str = "") -> ApiError:
    """An ID-JAG rule that failed: invalid_grant (RFC 7521 4.1, RFC 6749 5.2) with the rule's own code."""
    return ApiError(code, detail, internal=internal, oauth_error="invalid_grant")


def verify(assertion: str, client: Client, issuer: str, now: int) -> IdJag:
    """The ID-JAG's IdP and claims once every rule above holds (the jti not yet spent); else `refused`."""
    if len(assertion) > MAX_ASSERTION or assertion.count(".") != 2:
        raise refused("id_jag_malformed", "The assertion is not a compact JWS (RFC 7515 7.1).")
    head, body, tail = assertion.split(".")
    header, claims = segment_json(head), segment_json(body)
    try:
        signature = segment_bytes(tail)
    except ValueError:
        signature = None
    if header is None or claims is None or signature is None:
        raise refused("id_jag_malformed", "The assertion is not a compact JWS with JSON header and claims "
                                          "(RFC 7515 7.1).")
    if not jose_header.typ_is(header, TYP):
        raise refused("id_jag_type_invalid", f"The assertion's typ must be {TYP} "
                                             "(draft-ietf-oauth-identity-assertion-authz-grant; RFC 8725 3.11).")
    try:
        alg = jose_header.checked_alg(header, ALGORITHMS)
    except jose_header.HeaderRejected:
        raise refused("id_jag_signature_invalid", f"The assertion's alg must be one of {', '.join(ALGORITHMS)}.",
                      internal=f"alg {str(header.get('alg'))[:20]!r}") from None
    iss = claims.get("iss")
    idp = trusted_idp(client.tenant_id, iss) if isinstance(iss, str) and iss else None
    if idp is None:
        raise refused("id_jag_issuer_untrusted", "The assertion's issuer is not an identity provider this client's "
                                                 "tenant trusts (authgate idps create).",
                      internal=f"iss {json.dumps(iss)[:200]} tenant {client.tenant_id!r}")
    kid = header.get("kid")
    if kid is not None and not isinstance(kid, str):
        raise refused("id_jag_signature_invalid", "The assertion's kid is not a string.")
    try:
        keys = idp_key_cache().keys(idp, kid)
    except KeysUnavailable as exc:
        raise refused("id_jag_keys_unavailable", "The identity provider's signing keys could not be fetched; "
                                                 "the assertion cannot be verified now.", internal=str(exc)) from None
    signed = f"{head}.{body}".encode("ascii")
    if not any(jwa.verify(alg, key, signed, signature)
               for key in client_keys.candidates(keys, alg, kid, client_keys.IDP_ALGORITHMS)):
        raise refused("id_jag_signature_invalid", "The assertion is not signed by a key of its identity provider.",
                      internal=f"kid {str(kid)[:64]!r}")
    _check_claims(claims, client, issuer, now)
    return IdJag(idp, claims)


def _check_claims(claims: dict[str, Any], client: Client, issuer: str, now: int) -> None:
    aud = claims.get("aud")
    audiences = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
    if issuer not in audiences:
        raise refused("id_jag_audience_invalid", "The assertion's aud is not this authorization server's issuer "
                                                 "identifier (RFC 7523 3).",
                      internal=f"aud {json.dumps(aud)[:200]}")
    if claims.get("client_id") != client.client_id:
        raise refused("id_jag_client_mismatch", "The assertion's client_id is not the authenticated client.",
                      internal=f"client_id {json.dumps(claims.get('client_id'))[:200]}")
    leeway = get_settings().leeway
    exp, iat = numeric_date(claims.get("exp")), numeric_date(claims.get("iat"))
    if exp is None or iat is None:
        raise refused("id_jag_malformed", "The assertion needs exp and iat as NumericDates (RFC 7519 4.1.4, 4.1.6).")
    if exp <= now - leeway:
        raise refused("id_jag_expired", "The assertion has expired (RFC 7523 3).")
    if exp > now + MAX_LIFETIME + leeway:
        raise refused("id_jag_time_invalid", f"The assertion's exp is more than {MAX_LIFETIME} s ahead.")
    if iat > now + leeway:
        raise refused("id_jag_time_invalid", "The assertion's iat is in the future.")
    for name in ("sub", "jti"):
        value = claims.get(name)
        if not isinstance(value, str) or not value or len(value) > 255:
            raise refused("id_jag_malformed", f"The assertion needs a {name} claim of 1 to 255 characters.")
