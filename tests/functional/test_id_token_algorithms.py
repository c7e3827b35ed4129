"""ID tokens signed RS256 unless the client registered another offered id_token_signed_response_alg (OIDC Core
3.1.3.7 item 7, OIDC Discovery 1.0 3, OIDC Dynamic Client Registration 1.0 2), on a stack whose access tokens
are ES256: the RS256 key beside the ES256 one, both published, each signature checked by PyJWT and joserfc."""

from __future__ import annotations

import json
from typing import Any

import jwt
import pytest

from authgate.clock import ManualClock
from tests import aws_state
from tests.conftest import Invoke
from tests.demo import ISSUER
from tests.functional.openid_support import ALICE, openid_code
from tests.functional.token_support import TokenClient, body_of

LEAD = 300 + 120  # jwks_max_age + leeway: a next key's publication before it signs

pytestmark = pytest.mark.usefixtures("es256_demo")


@pytest.fixture
def es256_demo(aws: None, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo stack with SigningAlgorithm=ES256 (its keys made by the rotation, as a deployment's are)."""
    from authgate import caches
    from authgate.tokens.rotation import ensure_keys
    from authgate_cli.local.seed import load_seed

    monkeypatch.setenv("AUTHGATE_SIGNING_ALG", "ES256")
    caches.reset()

    def seed() -> None:
        load_seed()
        ensure_keys()

    aws_state.seeded("demo", seed)


def get(invoke: Invoke, path: str) -> dict[str, Any]:
    """GET `path` of the jwks function (the JWK Set and the metadata documents)."""
    from authgate_cli.local.events import HttpRequest, build_event

    return invoke("jwks", build_event(HttpRequest("GET", path, "", [("Host", "127.0.0.1:3000")]), resource=path,
                                      path_params=None))


def published(invoke: Invoke) -> dict[str, dict[str, Any]]:
    """The JWK Set GET /.well-known/jwks.json serves, by kid."""
    result = get(invoke, "/.well-known/jwks.json")
    assert result["statusCode"] == 200
    return {key["kid"]: key for key in json.loads(result["body"])["keys"]}


def verified(token: str, invoke: Invoke, alg: str, audience: str = "demo-web") -> dict[str, Any]:
    """The claims of `token` once PyJWT and joserfc (not our code) verified it with the served JWK of its kid."""
    from joserfc import jwt as jose_jwt
    from joserfc.jwk import KeySet

    header = jwt.get_unverified_header(token)
    keys = published(invoke)
    assert header["alg"] == alg and keys[header["kid"]]["alg"] == alg
    claims: dict[str, Any] = jwt.decode(token, jwt.PyJWK(keys[header["kid"]]).key, algorithms=[alg],
                                        audience=audience, issuer=ISSUER,
                                        options={"verify_exp": False, "verify_iat": False})
    decoded = jose_jwt.decode(token, KeySet.import_key_set({"keys": list(keys.values())}), algorithms=[alg])
    assert decoded.claims == claims
    return claims


def set_alg(client_id: str, alg: str) -> None:
    from authgate.stores.clients import ClientStore

    store = ClientStore()
    client = store.get(client_id, any_environment=True)
    assert client is not None
    store.replace(client._replace(id_token_signed_response_alg=alg))


def test_an_es256_stack_signs_id_tokens_rs256_beside_es256_access_tokens(invoke: Invoke,
                                                                         clock: ManualClock) -> None:
    tokens = TokenClient(invoke)
    result = tokens.exchange(openid_code())
    body = body_of(result)
    assert result["statusCode"] == 200
    assert jwt.get_unverified_header(body["access_token"])["alg"] == "ES256"
    claims = verified(body["id_token"], invoke, "RS256")
    assert (claims["sub"], claims["nonce"]) == ("usr_demoalice0000000000000", "n-0S6_WzA2Mj")
    keys = published(invoke)
    assert sorted((k["alg"], k["kty"]) for k in keys.values()) == [
        ("ES256", "EC"), ("ES256", "EC"), ("RS256", "RSA"), ("RS256", "RSA")]
    refreshed = body_of(tokens.refresh(body["refresh_token"]))
    assert verified(refreshed["id_token"], invoke, "RS256")["sub"] == claims["sub"]  # OIDC Core 12.2
    from authgate.oauth.token.id_token_hint import verified_hint

    assert verified_hint(body["id_token"], ISSUER) == claims  # RP-Initiated Logout takes it back as a hint


def test_a_client_registered_for_es256_gets_es256_id_tokens(invoke: Invoke,
                                                            clock: ManualClock) -> None:
    set_alg("demo-web", "ES256")
    tokens = TokenClient(invoke)
    body = body_of(tokens.exchange(openid_code()))
    verified(body["id_token"], invoke, "ES256")
    verified(body_of(tokens.refresh(body["refresh_token"]))["id_token"], invoke, "ES256")


def test_rotation_keeps_both_keys_published_and_id_tokens_verifiable(invoke: Invoke,
                                                                     clock: ManualClock) -> None:
    """Each algorithm's next key is published before it signs, its previous one after: an ID token signed before
    a rotation still verifies against the JWK Set served after it."""
    tokens = TokenClient(invoke)
    before = body_of(tokens.exchange(openid_code()))["id_token"]
    clock.advance(LEAD)
    invoke("rotate_keys", {"source": "aws.events", "detail-type": "Scheduled Event", "detail": {}})
    keys = published(invoke)
    assert sorted(k["alg"] for k in keys.values()) == ["ES256"] * 3 + ["RS256"] * 3  # previous, current, next
    verified(before, invoke, "RS256")
    after = body_of(tokens.exchange(openid_code()))["id_token"]
    assert jwt.get_unverified_header(after)["kid"] != jwt.get_unverified_header(before)["kid"]
    verified(after, invoke, "RS256")


def test_discovery_offers_rs256_first_then_the_stacks_own(invoke: Invoke) -> None:
    for path in ("/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"):
        result = get(invoke, path)
        assert result["statusCode"] == 200, path
        assert json.loads(result["body"])["id_token_signing_alg_values_supported"] == ["RS256", "ES256"]


def test_logout_tokens_are_signed_as_the_clients_id_tokens(invoke: Invoke,
                                                           clock: ManualClock) -> None:
    """Back-Channel Logout 1.0 2.4: the ID tokens' keys. The queued message names the client's algorithm; one
    queued before messages did (no `alg`) is signed RS256, the default."""
    from authgate.deliveries.backchannel_logout import messages_for
    from authgate.deliveries.deliver import deliver_one
    from authgate.sessions.model import Session
    from authgate.stores.clients import ClientStore

    store = ClientStore()
    client = store.get("demo-web", any_environment=True)
    assert client is not None
    store.replace(client._replace(backchannel_logout_uri="https://app.example/bcl", id_token_signed_response_alg="ES256"))
    now = int(clock())
    session = Session(session_hash="h", sid="sid-1", tenant_id="demo", user_id=ALICE, username="alice", auth_time=now,
                      acr="password", amr=("pwd",), created_at=now, last_active=now, expires_at=now + 3600,
                      clients=("demo-web",))
    (message,) = messages_for([session], ISSUER)
    assert (message["alg"], message["uri"]) == ("ES256", "https://app.example/bcl")
    posted: list[str] = []

    def post(uri: str, form: dict[str, str], allow_loopback: bool = False) -> int:
        posted.append(form["logout_token"])
        return 200

    old = {k: v for k, v in message.items() if k != "alg"}
    for body in (message, old):
        record = {"messageId": "m-1", "body": json.dumps(body), "attributes": {"ApproximateReceiveCount": "1"}}
        assert deliver_one(record, post) == "delivered"
    for token, alg in zip(posted, ("ES256", "RS256"), strict=True):
        claims = verified(token, invoke, alg)
        assert (jwt.get_unverified_header(token)["typ"], claims["sid"], claims["sub"]) == ("logout+jwt", "sid-1", ALICE)
