"""oauth.token.grants.authorization_code (RFC 6749 4.1.3, PKCE RFC 7636 4.6): one exchange per code, bound to its request."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable

import pytest

from authgate.errors import ApiError
from authgate.oauth.token.grants.authorization_code import AuthorizationCodeGrant
from authgate.oauth.token.grants.base import TokenRequest
from authgate.single_use.authentication import Authentication
from authgate.stores.codes import CodeStore
from authgate.stores.refresh_tokens import RefreshTokenStore
from tests.unit.oauth.token.grants.conftest import SERVICE, WEB, claims

MakeRequest = Callable[..., TokenRequest]
VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"  # RFC 7636 appendix B
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()
CALLBACK = "http://127.0.0.1:8765/callback"
# alice's password sign-in the code records (single_use.authentication).
SIGNED_IN = Authentication("usr_alice", 1_750_000_000)


def code(client_id: str = "web", *, challenge: str = CHALLENGE, redirect_uri_sent: bool = True,
         dpop_jkt: str | None = None, resource: str | None = None) -> str:
    return CodeStore().create(client_id=client_id, tenant_id="demo", redirect_uri=CALLBACK,
                              code_challenge=challenge, code_challenge_method="S256" if challenge else "",
                              scope="charges:read", subject="alice", redirect_uri_sent=redirect_uri_sent,
                              dpop_jkt=dpop_jkt, resource=resource, authentication=SIGNED_IN)


def form(c: str, **extra: str) -> dict[str, str]:
    return {"code": c, "redirect_uri": CALLBACK, "code_verifier": VERIFIER, **extra}


def refused(req: TokenRequest) -> tuple[str, str]:
    with pytest.raises(ApiError) as info:
        AuthorizationCodeGrant().exchange(req)
    return info.value.code, info.value.detail


def test_a_code_buys_an_access_token_and_a_refresh_family_of_its_grant(token_request: MakeRequest) -> None:
    result = AuthorizationCodeGrant().exchange(token_request(WEB, form(code())))
    c = claims(result.access_token)
    # The person's stable user_id as the sign-in recorded it, and the username the code was made under.
    assert (c["sub"], c["username"], c["client_id"], c["scope"], result.scope, result.token_type) == (
        "usr_alice", "alice", "web", "charges:read", "charges:read", "Bearer")
    assert result.refresh_token is not None
    refresh = RefreshTokenStore().get(result.refresh_token)
    assert refresh is not None and refresh.family_id == c["grant_id"]


def test_no_refresh_token_for_a_client_without_the_grant(token_request: MakeRequest) -> None:
    client = WEB._replace(grant_types=("authorization_code",))
    assert AuthorizationCodeGrant().exchange(token_request(client, form(code()))).refresh_token is None


def test_a_replayed_code_revokes_what_the_first_exchange_got(token_request: MakeRequest) -> None:
    c = code()
    first = AuthorizationCodeGrant().exchange(token_request(WEB, form(c)))
    assert refused(token_request(WEB, form(c)))[0] == "invalid_grant"
    assert first.refresh_token is not None
    assert not RefreshTokenStore().family_active(claims(first.access_token)["grant_id"])


@pytest.mark.parametrize(("change", "detail"), [
    ({"code_verifier": "x" * 43}, "code_verifier does not match the code challenge (RFC 7636 4.6)."),
    ({"redirect_uri": "http://127.0.0.1:8765/other"}, "redirect_uri does not match the authorization request."),
])
def test_the_exchange_must_match_the_authorization_request(token_request: MakeRequest, change: dict[str, str],
                                                          detail: str) -> None:
    assert refused(token_request(WEB, form(code(), **change))) == ("invalid_grant", detail)


def test_pkce_is_required_of_a_public_client_and_cannot_be_downgraded(token_request: MakeRequest) -> None:
    without = {k: v for k, v in form(code()).items() if k != "code_verifier"}
    assert refused(token_request(WEB, without)) == (
        "invalid_grant", "code_verifier is required: the authorization request used PKCE.")
    assert refused(token_request(WEB, {"code": code(challenge=""), "redirect_uri": CALLBACK})) == (
        "invalid_grant", "Public clients must use PKCE.")
    assert refused(token_request(WEB, form(code(challenge="")))) == (
        "invalid_grant", "code_verifier sent, but the authorization request had no code_challenge.")


def test_a_malformed_verifier_is_invalid_request(token_request: MakeRequest) -> None:
    assert refused(token_request(WEB, form(code(), code_verifier="short"))) == (
        "invalid_request", "code_verifier must be 43-128 unreserved characters (RFC 7636 4.1).")


def test_another_clients_code_is_refused(token_request: MakeRequest) -> None:
    assert refused(token_request(SERVICE, form(code()))) == (
        "invalid_grant", "The authorization code was issued to another client.")


def test_without_redirect_uri_in_the_request_only_the_uri_the_code_went_to_is_accepted(
        token_request: MakeRequest) -> None:
    assert refused(token_request(WEB, form(code(redirect_uri_sent=False), redirect_uri=CALLBACK + "2"))) == (
        "invalid_grant", "redirect_uri is not the URI the authorization code was sent to.")
    omitted = {k: v for k, v in form(code(redirect_uri_sent=False)).items() if k != "redirect_uri"}
    assert AuthorizationCodeGrant().exchange(token_request(WEB, omitted)).scope == "charges:read"


def test_a_dpop_bound_code_needs_a_proof_of_its_key(token_request: MakeRequest) -> None:
    assert refused(token_request(WEB, form(code(dpop_jkt="key-a")), dpop_jkt="key-b")) == (
        "invalid_grant", "The DPoP proof's key is not the key this authorization code is bound to.")
    result = AuthorizationCodeGrant().exchange(token_request(WEB, form(code(dpop_jkt="key-a")), dpop_jkt="key-a"))
    assert (result.token_type, claims(result.access_token)["cnf"]) == ("DPoP", {"jkt": "key-a"})
    assert result.refresh_token is not None
    refresh = RefreshTokenStore().get(result.refresh_token)
    assert refresh is not None and refresh.dpop_jkt == "key-a"  # a public client's family is bound too


def test_the_resource_must_be_the_one_the_authorization_request_named(token_request: MakeRequest) -> None:
    named = "http://127.0.0.1:3000/charges"
    # A resource this server does not know is refused before it is compared with the code's.
    assert refused(token_request(WEB, form(code(resource=named)), resource="https://other.example"))[0] == (
        "unknown_resource")
    result = AuthorizationCodeGrant().exchange(token_request(WEB, form(code(resource=named))))
    assert claims(result.access_token)["aud"] == named
