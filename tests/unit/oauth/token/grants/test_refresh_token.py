"""oauth.token.grants.refresh_token (RFC 6749 6): rotation, reuse revokes the grant (RFC 9700 4.14.2), scope only narrows."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from authgate.clock import ManualClock
from authgate.errors import ApiError
from authgate.oauth.token.grants.base import TokenRequest
from authgate.oauth.token.grants.refresh_token import RefreshTokenGrant
from authgate.stores.refresh_tokens import RefreshTokenStore
from authgate.stores.revocations import RevocationStore
from authgate.stores.users import UserStore
from tests.unit.oauth.token.grants.conftest import SERVICE, WEB, claims

MakeRequest = Callable[..., TokenRequest]


def family(clock: ManualClock, client_id: str = "web", scope: str = "charges:read charges:write",
           dpop_jkt: str | None = None, family_id: str = "g1") -> str:
    """A family of alice's (created now, if she is not there yet: no password hash is checked here)."""
    if UserStore().get("demo", "alice") is None:
        UserStore().put_hash("demo", "alice", "scrypt$unused")
    return RefreshTokenStore().start_family(family_id=family_id, client_id=client_id, tenant_id="demo",
                                            subject="alice", scope=scope, now=int(clock()), ttl=3600,
                                            dpop_jkt=dpop_jkt)


def refused(req: TokenRequest) -> tuple[str, str]:
    with pytest.raises(ApiError) as info:
        RefreshTokenGrant().exchange(req)
    return info.value.code, info.value.detail


def test_a_refresh_rotates_the_token_and_issues_one_for_the_grant(token_request: MakeRequest,
                                                                  clock: ManualClock) -> None:
    token = family(clock)
    result = RefreshTokenGrant().exchange(token_request(WEB, {"refresh_token": token}))
    assert result.refresh_token not in (None, token)
    assert (result.scope, result.token_type) == ("charges:read charges:write", "Bearer")
    c = claims(result.access_token)
    # A family that recorded no sign-in (started before sign-ins were recorded): the user_id of its user.
    alice = UserStore().get("demo", "alice")
    assert alice is not None
    assert (c["sub"], c["username"], c["client_id"], c["grant_id"], c["tenant"]) == (
        alice.user_id, "alice", "web", "g1", "demo")
    # The successor works; the presented one is spent.
    assert RefreshTokenGrant().exchange(token_request(WEB, {"refresh_token": result.refresh_token})).scope


def test_a_replayed_token_revokes_the_whole_grant(token_request: MakeRequest, clock: ManualClock) -> None:
    token = family(clock)
    successor = RefreshTokenGrant().exchange(token_request(WEB, {"refresh_token": token})).refresh_token
    assert refused(token_request(WEB, {"refresh_token": token})) == (
        "invalid_grant", "The refresh token has already been used; its grant is revoked.")
    assert not RefreshTokenStore().family_active("g1")
    # The grant's access tokens are revoked too (the guard checks grant_id).
    assert RevocationStore().is_revoked("some-jti", "g1", int(clock()))
    # The successor dies with its family.
    assert refused(token_request(WEB, {"refresh_token": successor})) == (
        "invalid_grant", "The refresh token has been revoked.")


def test_the_scope_may_narrow_but_never_widen(token_request: MakeRequest, clock: ManualClock) -> None:
    token = family(clock, scope="charges:read")
    assert refused(token_request(WEB, {"refresh_token": token, "scope": "charges:read charges:write"})) == (
        "invalid_scope", "The scope 'charges:write' exceeds the original grant (RFC 6749 6).")
    wide = family(clock, scope="charges:read charges:write", family_id="g2")
    result = RefreshTokenGrant().exchange(token_request(WEB, {"refresh_token": wide, "scope": "charges:read"}))
    assert (result.scope, claims(result.access_token)["scope"]) == ("charges:read", "charges:read")


@pytest.mark.parametrize(("form", "detail"), [
    ({}, "The refresh_token parameter is required."),
    ({"refresh_token": "not-a-token"}, "The refresh token is invalid."),
])
def test_a_missing_or_unknown_token(token_request: MakeRequest, form: dict[str, str], detail: str) -> None:
    code = "invalid_request" if not form else "invalid_grant"
    assert refused(token_request(WEB, form)) == (code, detail)


def test_another_clients_token_is_refused_and_left_intact(token_request: MakeRequest, clock: ManualClock) -> None:
    token = family(clock, client_id="svc")
    assert refused(token_request(WEB, {"refresh_token": token})) == (
        "invalid_grant", "The refresh token was issued to another client.")
    assert RefreshTokenGrant().exchange(token_request(SERVICE, {"refresh_token": token})).refresh_token


def test_an_expired_token_is_refused(token_request: MakeRequest, clock: ManualClock) -> None:
    token = family(clock)
    clock.advance(3600)
    assert refused(token_request(WEB, {"refresh_token": token})) == ("invalid_grant", "The refresh token has expired.")


def test_a_dpop_bound_family_needs_a_proof_of_its_key(token_request: MakeRequest, clock: ManualClock) -> None:
    token = family(clock, dpop_jkt="key-a")
    assert refused(token_request(WEB, {"refresh_token": token})) == (
        "invalid_dpop_proof", "This refresh token is DPoP-bound: send a DPoP proof of its key.")
    assert refused(token_request(WEB, {"refresh_token": token}, dpop_jkt="key-b")) == (
        "invalid_grant", "The DPoP proof's key is not the key this refresh token is bound to.")
    result = RefreshTokenGrant().exchange(token_request(WEB, {"refresh_token": token}, dpop_jkt="key-a"))
    assert (result.token_type, claims(result.access_token)["cnf"]) == ("DPoP", {"jkt": "key-a"})


def test_a_fapi2_clients_token_is_not_rotated_until_revoked(token_request: MakeRequest, clock: ManualClock) -> None:
    fapi = SERVICE._replace(profile="fapi2")
    token = family(clock, client_id="svc")
    for _ in range(2):
        assert RefreshTokenGrant().exchange(token_request(fapi, {"refresh_token": token})).refresh_token == token
    RefreshTokenStore().revoke_family("g1", int(clock()) + 3600)
    assert refused(token_request(fapi, {"refresh_token": token})) == (
        "invalid_grant", "The refresh token has been revoked.")


@pytest.mark.parametrize("change", ["disable", "delete", "reset", "change"])
def test_a_user_who_ends_their_sessions_ends_their_refresh_tokens(token_request: MakeRequest, clock: ManualClock,
                                                                  change: str) -> None:
    """Disabled, deleted, or `sessions_valid_after` moved past the token: invalid_grant, and the whole grant goes."""
    token = family(clock)
    clock.advance(5)
    store = UserStore()
    if change == "disable":
        store.set_disabled("demo", "alice", True)
    elif change == "delete":
        store.delete("demo", "alice")
    else:
        store.db.update_item(TableName="UsersTable", Key={"tenant_id": {"S": "demo"}, "username": {"S": "alice"}},
                             UpdateExpression="SET sessions_valid_after = :now",
                             ExpressionAttributeValues={":now": {"N": str(int(clock()))}})
    assert refused(token_request(WEB, {"refresh_token": token})) == (
        "invalid_grant", "The refresh token has been revoked.")
    assert not RefreshTokenStore().family_active("g1")
    assert RevocationStore().is_revoked("some-jti", "g1", int(clock()))


def test_a_token_issued_after_sessions_valid_after_stands(token_request: MakeRequest, clock: ManualClock) -> None:
    """The field counts whole seconds: a token of that very second is dead, one of the next stands."""
    UserStore().put_hash("demo", "alice", "scrypt$unused", sessions_valid_after=int(clock()))
    same_second = family(clock)
    assert refused(token_request(WEB, {"refresh_token": same_second})) == (
        "invalid_grant", "The refresh token has been revoked.")
    clock.advance(1)
    later = family(clock, family_id="g2")
    assert RefreshTokenGrant().exchange(token_request(WEB, {"refresh_token": later})).refresh_token


def test_the_generation_tells_sign_ins_of_the_same_second_apart(token_request: MakeRequest,
                                                               clock: ManualClock) -> None:
    """A grant signed in before an end of sessions dies and one signed in after it stands, in the very same
    second (a forced password change then the code exchange; a sign-in then a disable): whole seconds cannot
    tell them apart, the user's session_generation can (users.model.User.admits)."""
    from authgate.single_use.authentication import Authentication

    store = UserStore()
    user = store.put_hash("demo", "alice", "scrypt$unused", sessions_valid_after=int(clock()) - 1)

    def signed_in(family_id: str, generation: int) -> str:
        return RefreshTokenStore().start_family(
            family_id=family_id, client_id="web", tenant_id="demo", subject="alice", scope="charges:read",
            now=int(clock()), ttl=3600,
            authentication=Authentication(user.user_id, int(clock()), generation=generation))

    before = signed_in("g-before", 0)
    assert store.end_sessions("demo", "alice", int(clock()))
    assert store.get("demo", "alice").session_generation == 1  # type: ignore[union-attr]
    after = signed_in("g-after", 1)
    assert refused(token_request(WEB, {"refresh_token": before})) == (
        "invalid_grant", "The refresh token has been revoked.")
    assert RefreshTokenGrant().exchange(token_request(WEB, {"refresh_token": after})).refresh_token
    # A user of the same name created again is someone else: the old person's grant does not stand for them.
    store.delete("demo", "alice")
    store.put_hash("demo", "alice", "scrypt$unused")
    clock.advance(5)
    assert refused(token_request(WEB, {"refresh_token": signed_in("g-other", 1)})) == (
        "invalid_grant", "The refresh token has been revoked.")
