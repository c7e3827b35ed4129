"""oauth.token.grants.password (RFC 6749 4.3): the user's token when the credentials hold; one answer for every failure."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from authgate.errors import ApiError
from authgate.oauth.token.grants.base import TokenRequest
from authgate.oauth.token.grants.password import PasswordGrant
from authgate.stores.users import UserStore
from tests.unit.oauth.token.grants.conftest import SERVICE, claims

# Slow: every test signs alice in: a password check at full scrypt cost.
pytestmark = pytest.mark.slow

MakeRequest = Callable[..., TokenRequest]


@pytest.fixture
def alice(keys: None) -> None:
    UserStore().create("demo", "alice", "correct horse battery staple")


@pytest.mark.usefixtures("alice")
def test_the_token_speaks_for_the_user(token_request: MakeRequest) -> None:
    result = PasswordGrant().exchange(token_request(SERVICE, {"username": "alice",
                                                              "password": "correct horse battery staple",
                                                              "scope": "charges:read"}))
    c = claims(result.access_token)
    alice = UserStore().get("demo", "alice")
    assert alice is not None
    # The person's stable user_id, and the username they signed in with.
    assert (c["sub"], c["username"], c["client_id"], c["scope"], result.refresh_token) == (
        alice.user_id, "alice", "svc", "charges:read", None)


@pytest.mark.parametrize("form", [
    {"username": "alice", "password": "wrong"},
    {"username": "nobody", "password": "correct horse battery staple"},
])
@pytest.mark.usefixtures("alice")
def test_a_wrong_password_and_an_unknown_user_look_the_same(token_request: MakeRequest, form: dict[str, str]) -> None:
    with pytest.raises(ApiError) as info:
        PasswordGrant().exchange(token_request(SERVICE, form))
    assert (info.value.code, info.value.status, info.value.detail) == (
        "invalid_grant", 400, "The resource owner credentials are invalid.")


@pytest.mark.usefixtures("alice")
def test_missing_credentials_are_invalid_request(token_request: MakeRequest) -> None:
    with pytest.raises(ApiError) as info:
        PasswordGrant().exchange(token_request(SERVICE, {"username": "alice"}))
    assert (info.value.code, info.value.detail) == ("invalid_request", "The password parameter is required.")


@pytest.mark.usefixtures("alice")
def test_a_reset_password_must_be_changed_on_the_sign_in_page_first(token_request: MakeRequest) -> None:
    UserStore().reset_password("demo", "alice", "temporary-password-1")
    with pytest.raises(ApiError) as info:
        PasswordGrant().exchange(token_request(SERVICE, {"username": "alice", "password": "temporary-password-1"}))
    assert (info.value.code, info.value.status, info.value.detail) == (
        "invalid_grant", 400, "The password was reset: sign in on the authorization page to set a new one first.")
