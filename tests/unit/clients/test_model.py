"""authgate.clients.model: the field table's DynamoDB item and public view, the secret check, registration rules."""

from __future__ import annotations

import pytest

from authgate.clients.model import (
    Client,
    check_registration,
    client_of,
    client_secret_matches,
    from_item,
    hash_secret,
    registered,
    to_item,
)
from authgate.clients.origins import browser_origins, origin_record_id

FULL = Client(
    client_id="c1", tenant_id="t1", environment="staging", client_type="confidential",
    secret_hash=hash_secret("s3cret"), redirect_uris=("https://app.example/cb",), grant_types=("authorization_code",),
    scopes=("charges:read", "charges:write"), error_format="legacy-a", requires_admin_approval=True, name="App",
    created_at=1700000000, jwks=({"kty": "EC", "crv": "P-256", "x": "x", "y": "y"},),
    token_endpoint_auth_method="private_key_jwt", require_pushed_authorization_requests=True, profile="fapi2",
    dpop_bound_access_tokens=True,
)


def test_a_full_client_is_stored_attribute_by_attribute() -> None:
    assert to_item(FULL) == {
        "client_id": {"S": "c1"}, "tenant_id": {"S": "t1"}, "environment": {"S": "staging"},
        "client_type": {"S": "confidential"}, "secret_hash": {"S": hash_secret("s3cret")},
        "redirect_uris": {"L": [{"S": "https://app.example/cb"}]}, "grant_types": {"L": [{"S": "authorization_code"}]},
        "scopes": {"L": [{"S": "charges:read"}, {"S": "charges:write"}]}, "error_format": {"S": "legacy-a"},
        "requires_admin_approval": {"BOOL": True}, "name": {"S": "App"}, "created_at": {"N": "1700000000"},
        "jwks": {"S": '{"keys":[{"kty":"EC","crv":"P-256","x":"x","y":"y"}]}'},
        "token_endpoint_auth_method": {"S": "private_key_jwt"}, "require_pushed_authorization_requests": {"BOOL": True},
        "profile": {"S": "fapi2"}, "dpop_bound_access_tokens": {"BOOL": True},
    }
    assert from_item(to_item(FULL)) == FULL


def test_optional_attributes_are_not_written_and_read_back_as_their_defaults() -> None:
    public = Client("p1", "t1", "local", "public", None, (), (), ())
    item = to_item(public)
    assert set(item) == {"client_id", "tenant_id", "environment", "client_type", "redirect_uris", "grant_types",
                         "scopes", "error_format", "requires_admin_approval", "name", "created_at"}
    assert from_item(item) == public


def test_a_sparse_or_older_item_reads_with_defaults() -> None:
    client = from_item({"client_id": {"S": "old"}, "scopes": {"SS": ["b", "a"]}, "secret_hash": {"S": ""}})
    assert client == Client("old", "", "local", "confidential", None, (), (), ("a", "b"))


def test_the_public_view_hides_the_hash_and_names_the_effective_auth_method() -> None:
    view = Client("c2", "t1", "local", "confidential", hash_secret("x"), ("https://a/cb",), (), ("s",)).public_view()
    assert view == {
        "client_id": "c2", "tenant_id": "t1", "environment": "local", "client_type": "confidential",
        "redirect_uris": ["https://a/cb"], "grant_types": [], "scopes": ["s"], "error_format": "problem",
        "requires_admin_approval": False, "name": "", "created_at": 0, "jwks": {"keys": []},
        "token_endpoint_auth_method": "client_secret_basic", "require_pushed_authorization_requests": False,
        "profile": "", "dpop_bound_access_tokens": False,
        # How the client came (docs/agents.md): "" an administrator's; never the registration token's hash.
        "source": "", "refresh_at": 0, "expires_at": 0, "registration_pool": "",
        # What an administrator granted it of each registered resource (least privilege).
        "resource_scopes": {}, "post_logout_redirect_uris": [],
        # OpenID Connect Back-Channel Logout 1.0 2.2.
        "backchannel_logout_uri": "", "backchannel_logout_session_required": False,
        # OpenID Connect Dynamic Client Registration 1.0 2: RS256 unless registered otherwise.
        "id_token_signed_response_alg": "RS256",
        # OpenID Connect CIBA Core 1.0 4: the delivery mode a self-registered client stated ("" none).
        "backchannel_token_delivery_mode": "",
    }


def test_only_a_confidential_client_with_that_secret_matches() -> None:
    assert client_secret_matches(FULL, "s3cret")
    assert not client_secret_matches(FULL, "other")
    assert not client_secret_matches(None, "s3cret")
    assert not client_secret_matches(FULL._replace(secret_hash=None), "s3cret")


@pytest.mark.parametrize(("field", "value"), [
    ("client_type", "secret"), ("error_format", "xml"), ("environment", "dev"),
    ("token_endpoint_auth_method", "tls_client_auth"), ("profile", "fapi1"),
])
def test_unknown_registration_values_are_refused(field: str, value: str) -> None:
    values = {"client_type": "public", "error_format": "problem", "environment": "local",
              "token_endpoint_auth_method": "", "profile": ""}
    check_registration(client_of({"client_id": "c", **values}))
    with pytest.raises(ValueError, match=field):
        check_registration(client_of({"client_id": "c", **values, field: value}))


def test_browser_origins_are_those_of_a_public_clients_redirect_uris() -> None:
    public = Client("p", "t", "local", "public", None, ("https://App.example:443/cb", "com.example.app:/cb",
                                                         "http://127.0.0.1:8765/x"), (), ())
    assert browser_origins(public) == {"https://app.example", "http://127.0.0.1:8765"}
    assert browser_origins(public._replace(client_type="confidential")) == set()
    assert origin_record_id("local", "https://app.example") == "origin local https://app.example"


def test_a_client_from_values_by_field_name() -> None:
    built = client_of({"client_id": "c2", "redirect_uris": ["https://app.example/cb"], "grant_types": ["refresh_token"],
                       "jwks": {"keys": [{"kty": "EC"}]}, "resource_scopes": {"https://b.example": ["w", "r"],
                                                                             "https://a.example": ("r",)},
                       "private_jwk": {"d": "never a field"}})
    # What FIELDS says an absent attribute is; tuples for lists; a JWK Set's keys; sorted resource pairs.
    assert built == Client("c2", "", "local", "confidential", None, ("https://app.example/cb",), ("refresh_token",), (),
                           jwks=({"kty": "EC"},),
                           resource_scopes=(("https://a.example", ("r",)), ("https://b.example", ("w", "r"))))
    assert client_of(FULL._asdict()) == FULL


def test_a_registered_client_gets_an_id_this_stage_and_a_secret_unless_it_proves_itself_with_keys() -> None:
    client, secret = registered({"tenant_id": "t1", "client_id": None, "environment": None}, stage="staging", now=5)
    assert secret is not None and client_secret_matches(client, secret)
    assert (client.client_id.startswith("client_"), client.environment, client.created_at) == (True, "staging", 5)
    seeded, demo = registered({"client_id": "c", "tenant_id": "t1"}, stage="local", now=5, secret="demo-secret")
    assert (demo, seeded.secret_hash) == ("demo-secret", hash_secret("demo-secret"))
    keyed, none = registered({"client_id": "k", "tenant_id": "t1", "token_endpoint_auth_method": "private_key_jwt",
                              "jwks": [{"kty": "EC"}]}, stage="local", now=5)
    public, no_secret = registered({"client_id": "p", "tenant_id": "t1", "client_type": "public"}, stage="local", now=5)
    assert (none, keyed.secret_hash, no_secret, public.secret_hash) == (None, None, None, None)
    with pytest.raises(ValueError, match="client_type"):
        registered({"client_id": "x", "client_type": "secret"}, stage="local", now=5)
