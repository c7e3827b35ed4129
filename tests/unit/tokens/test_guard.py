"""tokens.guard: the bearer guard called directly on a Request (RFC 6750 3.1, RFC 9068 4, RFC 9449 7.1).

Real tokens from the real issuer, signed by the current key in moto; revocations in moto's table.
"""

from __future__ import annotations

from typing import Any

import pytest

from authgate.clock import ManualClock
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.stores.batch import BatchRead
from authgate.stores.revocations import RevocationStore
from authgate.tokens.guard import (
    active_access_token,
    require_bearer,
    require_bearer_with,
    verify_access_token,
)
from tests.bearer_requests import bearer, event, issue, seed_client
from tests.demo import AUDIENCE, ISSUER

METADATA = f'resource_metadata="{ISSUER}/.well-known/oauth-protected-resource/charges"'
DPOP = f'DPoP algs="ES256 EdDSA RS256 PS256", {METADATA}'


def challenge(error: str | None = None, description: str = "", scope: str | None = None) -> str:
    value = 'Bearer realm="api"' + (f', error="{error}", error_description="{description}"' if error else "")
    return value + (f', scope="{scope}"' if scope else "") + f", {METADATA}, {DPOP}"


def request(headers: dict[str, list[str]] | None = None, **kwargs: Any) -> Request:
    return Request.from_event(event(headers=headers, **kwargs))


def refused(req: Request, scope: str = "charges:read") -> tuple[str, int, str, dict[str, str]]:
    with pytest.raises(ApiError) as info:
        require_bearer(req, scope)
    return info.value.code, info.value.status, info.value.detail, info.value.headers


def test_a_valid_token_with_the_scope_is_its_principal(keys: None, clock: ManualClock) -> None:
    issued = issue(grant_id="g-1")
    req = request(bearer(issued.token))
    principal = require_bearer(req, "charges:read")
    assert (principal.subject, principal.client_id, principal.tenant, principal.scopes, principal.jti,
            principal.grant_id, principal.expires_at, principal.jkt) == (
        "demo-service", "demo-service", "demo", frozenset({"charges:read", "charges:write"}), issued.jti,
        "g-1", int(clock()) + issued.expires_in, None)
    # The client's registered error shape is left for the renderer.
    assert req.context.error_format == "problem"


def test_every_required_scope_must_be_granted(keys: None) -> None:
    token = issue(scope="charges:read").token
    assert require_bearer(request(bearer(token)), "charges:read").tenant == "demo"
    detail = "The access token lacks the scope charges:read charges:write."
    assert refused(request(bearer(token)), "charges:read charges:write") == (
        "insufficient_scope", 403, detail,
        {"WWW-Authenticate": challenge("insufficient_scope", detail, "charges:read charges:write")})


@pytest.mark.parametrize("headers", [None, {"Authorization": [""]}, {"Authorization": ["Basic dXNlcjpwdw=="]}])
def test_no_bearer_credentials_is_401_without_an_error_code(keys: None, headers: Any) -> None:
    assert refused(request(headers)) == (
        "unauthenticated", 401, "The request carries no credentials; send Authorization: Bearer <token>.",
        {"WWW-Authenticate": challenge()})


@pytest.mark.parametrize(("value", "detail"), [
    ("Bearer", "The Bearer credentials are empty."),
    ("Bearer a b", "The Authorization header must be Bearer followed by exactly one token (token68 syntax)."),
    ("Bearer a,b", "The Authorization header must be Bearer followed by exactly one token (token68 syntax)."),
])
def test_malformed_credentials_are_400_invalid_request(keys: None, value: str, detail: str) -> None:
    assert refused(request({"Authorization": [value]})) == (
        "invalid_request", 400, detail, {"WWW-Authenticate": challenge("invalid_request", detail)})


def test_a_token_in_the_query_is_not_accepted(keys: None) -> None:
    token = issue().token
    code, status, detail, headers = refused(request(query={"access_token": [token]}))
    assert (code, status, detail, headers) == (
        "unauthenticated", 401, "The access_token parameter is not accepted; send Authorization: Bearer <token>.",
        {"WWW-Authenticate": challenge()})


@pytest.mark.parametrize("value", ["Bearer not-a-jwt", "Bearer a.b.c", "bearer  a.b.c"])
def test_what_is_not_our_token_is_invalid_token(keys: None, value: str) -> None:
    # RFC 6750 2.1: "Bearer" 1*SP b64token, the scheme case-insensitive (RFC 9110 11.1).
    code, status, detail, headers = refused(request({"Authorization": [value]}))
    assert (code, status) == ("invalid_token", 401)
    assert headers == {"WWW-Authenticate": challenge("invalid_token", detail)}


def test_an_expired_token_is_invalid_token(keys: None, clock: ManualClock) -> None:
    issued = issue()
    clock.advance(issued.expires_in + 121)  # past exp and the default leeway
    code, status, detail, headers = refused(request(bearer(issued.token)))
    assert (code, status, headers) == ("invalid_token", 401, {"WWW-Authenticate": challenge("invalid_token", detail)})
    assert "expired" in detail


def test_a_revoked_token_or_grant_is_invalid_token(keys: None, clock: ManualClock) -> None:
    by_jti, by_grant = issue(grant_id="g-1"), issue(grant_id="g-2")
    RevocationStore().revoke_jti(by_jti.jti, int(clock()) + 1000)
    RevocationStore().revoke_grant("g-2", int(clock()) + 1000)
    for issued in (by_jti, by_grant):
        assert refused(request(bearer(issued.token))) == (
            "invalid_token", 401, "The access token was revoked.",
            {"WWW-Authenticate": challenge("invalid_token", "The access token was revoked.")})


def test_a_token_of_an_unregistered_client_is_invalid_token(aws: None, clock: ManualClock) -> None:
    from authgate.tokens.rotation import ensure_keys

    ensure_keys()
    detail = "The client this token was issued to is not registered."
    assert refused(request(bearer(issue().token))) == (
        "invalid_token", 401, detail, {"WWW-Authenticate": challenge("invalid_token", detail)})


@pytest.mark.parametrize("registered", ["legacy-a", "legacy-b"])
def test_the_clients_error_format_is_set_before_the_scope_check(aws: None, clock: ManualClock, registered: str) -> None:
    from authgate.tokens.rotation import ensure_keys

    ensure_keys()
    seed_client(error_format=registered)
    req = request(bearer(issue(scope="charges:read").token))
    with pytest.raises(ApiError):
        require_bearer(req, "charges:write")
    assert req.context.error_format == registered


def test_a_token_for_another_audience_is_refused_unless_the_route_names_it(keys: None) -> None:
    other = f"{ISSUER}/other"
    token = issue(audience=other).token
    assert refused(request(bearer(token)))[:2] == ("invalid_token", 401)
    assert require_bearer(request(bearer(token)), "charges:read", audience=other).client_id == "demo-service"
    assert require_bearer(request(bearer(issue().token)), "charges:read", audience=AUDIENCE).tenant == "demo"


def test_an_unbound_token_sent_as_dpop_is_invalid_token(keys: None) -> None:
    detail = "The access token is not DPoP-bound; send it as Authorization: Bearer."
    with pytest.raises(ApiError) as info:
        require_bearer(request({"Authorization": [f"DPoP {issue().token}"]}), "charges:read")
    assert (info.value.code, info.value.status, info.value.detail, info.value.headers) == (
        "invalid_token", 401, detail,
        {"WWW-Authenticate": f'DPoP algs="ES256 EdDSA RS256 PS256", error="invalid_token", '
                             f'error_description="{detail}", {METADATA}, Bearer realm="api", {METADATA}'})


def test_a_bound_token_sent_as_bearer_is_invalid_token(keys: None) -> None:
    detail = ("The access token is DPoP-bound: send it as Authorization: DPoP with a DPoP proof (RFC 9449 7.1).")
    assert refused(request(bearer(issue(jkt="thumbprint").token))) == (
        "invalid_token", 401, detail, {"WWW-Authenticate": challenge("invalid_token", detail)})


def test_a_bound_token_without_a_proof_is_401_on_the_dpop_challenge(keys: None) -> None:
    detail = "The request carries no DPoP proof; a DPoP-bound token needs one (RFC 9449 7.1)."
    with pytest.raises(ApiError) as info:
        require_bearer(request({"Authorization": [f"DPoP {issue(jkt='thumbprint').token}"]}), "charges:read")
    assert (info.value.code, info.value.status, info.value.detail) == ("invalid_dpop_proof", 401, detail)
    assert info.value.headers["WWW-Authenticate"] == (
        f'DPoP algs="ES256 EdDSA RS256 PS256", error="invalid_dpop_proof", error_description="{detail}", '
        f'{METADATA}, Bearer realm="api", {METADATA}')


def test_the_routes_reads_share_the_guards_batch(keys: None, clock: ManualClock) -> None:
    from authgate.settings import get_settings

    issued = issue()
    seen: list[str] = []

    def prefetch(principal: Any, reads: BatchRead) -> Any:
        seen.append(principal.client_id)
        return reads.add(get_settings().tables.clients, {"client_id": {"S": principal.client_id}})

    principal, pending = require_bearer_with(request(bearer(issued.token)), "charges:read", prefetch)
    assert seen == ["demo-service"] and principal.jti == issued.jti
    item = pending.item
    assert item is not None and item["client_id"] == {"S": "demo-service"}


def test_prefetch_is_not_called_for_a_bad_token(keys: None) -> None:
    calls: list[Any] = []
    with pytest.raises(ApiError):
        require_bearer_with(request(bearer("a.b.c")), "charges:read", lambda p, r: calls.append(p))
    assert calls == []


def test_verify_access_token_checks_revocation(keys: None, clock: ManualClock) -> None:
    issued = issue()
    assert verify_access_token(issued.token, issuer=ISSUER).jti == issued.jti
    RevocationStore().revoke_jti(issued.jti, int(clock()) + 1000)
    with pytest.raises(ApiError) as info:
        verify_access_token(issued.token, issuer=ISSUER)
    assert (info.value.code, info.value.detail) == ("invalid_token", "The access token was revoked.")


def test_active_access_token_is_none_for_anything_not_currently_valid(keys: None, clock: ManualClock) -> None:
    issued = issue()
    active = active_access_token(issued.token, issuer=ISSUER)
    assert active is not None and active.jti == issued.jti
    assert active_access_token("opaque-refresh-token", issuer=ISSUER) is None
    assert active_access_token("a.b.c", issuer=ISSUER) is None
    assert active_access_token(issued.token, issuer="https://other.example") is None
    RevocationStore().revoke_jti(issued.jti, int(clock()) + 1000)
    assert active_access_token(issued.token, issuer=ISSUER) is None


def test_a_token_of_a_client_that_no_longer_exists_is_not_active(keys: None, clock: ManualClock) -> None:
    """A deleted (RFC 7592 2.3) or expired registration's tokens are inactive at introspection (RFC 7662 2.2)."""
    from authgate.stores.clients import ClientStore

    issued = issue()
    assert active_access_token(issued.token, issuer=ISSUER) is not None
    client = ClientStore().get("demo-service")
    assert client is not None
    ClientStore().put(client._replace(expires_at=int(clock())))
    assert active_access_token(issued.token, issuer=ISSUER) is None
    ClientStore().put(client._replace(expires_at=int(clock()) + 1))
    assert active_access_token(issued.token, issuer=ISSUER) is not None
    from authgate.stores.registrations import RegistrationStore

    RegistrationStore().delete("demo-service")  # what RFC 7592 DELETE does
    assert active_access_token(issued.token, issuer=ISSUER) is None


def test_active_access_token_never_calls_an_outage_inactive(keys: None, clock: ManualClock) -> None:
    from authgate.stores.exceptions import StorageUnavailable
    from tests.faults.injection import dynamodb_calls

    issued = issue()
    assert active_access_token(issued.token, issuer=ISSUER) is not None  # the verification keys are loaded
    with dynamodb_calls(at=0) as calls, pytest.raises(StorageUnavailable):
        active_access_token(issued.token, issuer=ISSUER)
    # One BatchGetItem: the revocation ids and the token's client (is it still registered?).
    assert calls.injected == ("BatchGetItem", "ClientsTable,RevocationsTable")
