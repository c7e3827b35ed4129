"""The authorization code grant's token request (RFC 6749 §4.1.3) with PKCE (RFC 7636 §4.5-4.6)."""

from __future__ import annotations

from authgate.errors import ApiError
from authgate.failures import as_api_error
from authgate.grants.revoke import revoke_grant
from authgate.oauth import pkce
from authgate.oauth.token.grants.approval import approved_tokens
from authgate.oauth.token.grants.base import Grant, TokenRequest, TokenResult, check_key_binding
from authgate.single_use.codes import AuthorizationCode
from authgate.single_use.errors import CodeAlreadyUsed, CodeError
from authgate.stores.codes import CodeStore


def _invalid_grant(detail: str, internal: str = "") -> ApiError:
    return ApiError("invalid_grant", detail, internal=internal)


def check_redirect_uri(record: AuthorizationCode, sent: str | None) -> None:
    """RFC 6749 4.1.3, read strictly: the token request's redirect_uri against where the code went.

    When the authorization request included redirect_uri, the token request must include it too,
    identical (the RFC's REQUIRED). When it did not (the client's only registered URI was used),
    the RFC asks for nothing; we accept an omitted redirect_uri, or exactly the URI the code was
    sent to, and nothing else: not another URI the client has registered since (Authlib accepts
    any value then; node-oidc-provider the client's single registered URI at exchange time).
    """
    if record.redirect_uri_sent:
        if sent != record.redirect_uri:
            raise _invalid_grant("redirect_uri does not match the authorization request.")
    elif sent is not None and sent != record.redirect_uri:
        raise _invalid_grant("redirect_uri is not the URI the authorization code was sent to.")


class AuthorizationCodeGrant(Grant):
    GRANT_TYPE = "authorization_code"
    TAKES_DETAILS = True

    def exchange(self, req: TokenRequest) -> TokenResult:
        code = req.param("code")
        verifier = req.form.get("code_verifier")
        if verifier is not None and not pkce.is_valid_verifier(verifier):
            raise ApiError("invalid_request", "code_verifier must be 43-128 unreserved characters (RFC 7636 4.1).")
        client = req.client
        try:
            # One conditional write: of any number of concurrent exchanges, one gets the record.
            record = CodeStore().consume(code)
        except CodeAlreadyUsed as used:
            assert used.record is not None
            revoke_grant(used.record.grant_id, req.now, "authorization code replayed", code="code_replayed",
                         tenant=used.record.tenant_id, client_id=client.client_id)
            raise as_api_error(used) from used
        except CodeError as exc:
            raise as_api_error(exc) from exc

        if record.client_id != client.client_id:
            raise _invalid_grant("The authorization code was issued to another client.",
                                 internal=f"code of {record.client_id!r} presented by {client.client_id!r}")
        check_redirect_uri(record, req.form.get("redirect_uri"))
        if record.code_challenge:
            if verifier is None:
                raise _invalid_grant("code_verifier is required: the authorization request used PKCE.")
            if not pkce.verify(verifier, record.code_challenge, record.code_challenge_method):
                raise _invalid_grant("code_verifier does not match the code challenge (RFC 7636 4.6).")
        elif verifier is not None:
            # PKCE downgrade: a verifier for a code issued without a challenge (RFC 9700 2.1.1).
            raise _invalid_grant("code_verifier sent, but the authorization request had no code_challenge.")
        elif client.is_public:
            raise _invalid_grant("Public clients must use PKCE.")
        # RFC 9449 10.1: a code bound by dpop_jkt is redeemed only with a proof of that key.
        check_key_binding(record.dpop_jkt, req.dpop_jkt, "authorization code")
        return approved_tokens(req, tenant_id=record.tenant_id, subject=record.subject, scope=record.scope,
                               resource=record.resource, grant_id=record.grant_id,
                               authentication=record.authentication, nonce=record.nonce,
                               authorization_details=record.authorization_details)
