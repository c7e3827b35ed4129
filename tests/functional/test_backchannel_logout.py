"""OpenID Connect Back-Channel Logout 1.0: a sign-out queues logout tokens, the deliver function sends them.

The receiver is a real HTTPS server on 127.0.0.1 under the test CA (tests.document_server), the
queue moto's SQS with the template's redrive policy, the consumer the local stack's poller
running the deliver function's own handler; each token is verified with PyJWT against the
published JWK Set.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs

import jwt
import pytest

from tests.demo import ISSUER
from tests.document_server import DocumentServer, Route, document_server, trust_documents
from tests.functional.authorize_support import Browser, headers_of
from tests.functional.logout_support import (
    ALICE,
    BACK,
    hint,
    logout,
    queued,
    signed_in,
    used_by,
    with_backchannel,
)

EVENT = "http://schemas.openid.net/event/backchannel-logout"


@pytest.fixture(scope="module")
def receiver_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    with document_server(tmp_path_factory.mktemp("tls")) as srv:
        yield srv


@pytest.fixture
def receiver(receiver_server: DocumentServer, monkeypatch: pytest.MonkeyPatch) -> DocumentServer:
    receiver_server.posts.clear()
    receiver_server.post_answers.clear()
    return trust_documents(receiver_server, monkeypatch)


def poll() -> int:
    from authgate import aws
    from authgate.settings import get_settings
    from authgate_cli.local.deliveries import DeliveryPoller

    return DeliveryPoller(aws.sqs(), get_settings().deliveries_queue).poll_once()


def verified(token: str, client_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(header, claims) of a logout token the published JWK Set verifies (PyJWT, not authgate's code)."""
    from authgate.tokens.jwk_set import jwk_set

    header = jwt.get_unverified_header(token)
    (key,) = [k for k in jwk_set()["keys"] if k["kid"] == header["kid"]]
    claims = jwt.decode(token, jwt.PyJWK(key).key, algorithms=[header["alg"]], audience=client_id, issuer=ISSUER,
                        options={"require": ["iss", "aud", "iat", "exp", "jti", "events"]})
    return header, claims


def test_a_sign_out_sends_each_registered_client_a_verifiable_logout_token(browser: Browser,
                                                                           receiver: DocumentServer) -> None:
    uri = receiver.url("/backchannel")
    with_backchannel("demo-web", uri)
    session = used_by(signed_in(browser), "demo-web", "demo-spa")  # demo-spa registered no URI
    result = logout(browser, [("id_token_hint", hint(session)), ("post_logout_redirect_uri", BACK)])
    assert (result["statusCode"], headers_of(result)["Location"]) == (302, BACK)
    (message,) = queued()
    assert {k: v for k, v in message.items() if k != "jti"} == {
        "kind": "backchannel_logout", "issuer": ISSUER, "client_id": "demo-web", "uri": uri, "sub": ALICE,
        "sid": session.sid, "alg": "RS256"}
    from authgate import caches

    caches.reset()  # the deliver function starts cold: it reads the signing key itself
    assert poll() == 1
    ((path, content_type, body),) = receiver.posts
    assert (path, content_type) == ("/backchannel", "application/x-www-form-urlencoded")
    form = parse_qs(body.decode())
    assert list(form) == ["logout_token"]
    header, claims = verified(form["logout_token"][0], "demo-web")
    assert header["typ"] == "logout+jwt"
    assert claims["sub"] == ALICE and claims["sid"] == session.sid and claims["jti"] == message["jti"]
    assert claims["events"] == {EVENT: {}} and "nonce" not in claims
    assert 0 < claims["exp"] - claims["iat"] <= 120
    assert queued() == []  # delivered: deleted from the queue


def test_a_failed_delivery_is_retried_then_succeeds(browser: Browser, receiver: DocumentServer,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.deliveries.deliver import deliver_one

    receiver.post_answers["/flaky"] = [Route(b"", 503, {}), Route(b"", 200, {})]
    with_backchannel("demo-web", receiver.url("/flaky"))
    session = used_by(signed_in(browser), "demo-web")
    logout(browser, [("id_token_hint", hint(session))])
    (message,) = queued()
    record = {"messageId": "m-1", "body": json.dumps(message), "attributes": {"ApproximateReceiveCount": "1"}}
    assert deliver_one(record) == "retried"
    assert deliver_one({**record, "attributes": {"ApproximateReceiveCount": "2"}}) == "delivered"
    assert len(receiver.posts) == 2
    emitted = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"_aws"' in line]
    counted = [name for doc in emitted for metric in doc["_aws"]["CloudWatchMetrics"] for name in
               (m["Name"] for m in metric["Metrics"])]
    assert counted == ["BackchannelLogoutRetried", "BackchannelLogoutDelivered"]


def test_the_last_attempt_gives_up_and_a_4xx_is_not_retried(browser: Browser, receiver: DocumentServer) -> None:
    from authgate.deliveries.deliver import MAX_ATTEMPTS, deliver_batch

    receiver.post_answers["/down"] = [Route(b"", 503, {})]
    receiver.post_answers["/gone"] = [Route(b"", 404, {})]
    base = {"kind": "backchannel_logout", "issuer": ISSUER, "client_id": "demo-web", "sub": ALICE, "sid": "s",
            "jti": "j"}
    records = [{"messageId": "last", "attributes": {"ApproximateReceiveCount": str(MAX_ATTEMPTS)},
                "body": json.dumps({**base, "uri": receiver.url("/down")})},
               {"messageId": "early", "attributes": {"ApproximateReceiveCount": "1"},
                "body": json.dumps({**base, "uri": receiver.url("/down")})},
               {"messageId": "gone", "attributes": {"ApproximateReceiveCount": "1"},
                "body": json.dumps({**base, "uri": receiver.url("/gone")})},
               {"messageId": "junk", "body": "{not json"}]
    assert deliver_batch(records) == ["early"]


def test_a_private_address_is_never_posted_to(demo: Any, receiver: DocumentServer) -> None:
    from authgate.deliveries.deliver import deliver_one

    message = {"kind": "backchannel_logout", "issuer": ISSUER, "client_id": "demo-web", "sub": ALICE, "sid": "s",
               "jti": "j", "uri": "https://10.0.0.1/backchannel"}
    assert deliver_one({"messageId": "m", "body": json.dumps(message)}) == "failed"


def test_the_outbox_keeps_each_attempt_on_the_local_stack(browser: Browser, receiver: DocumentServer,
                                                          tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches
    from authgate.mail import outbox

    path = str(tmp_path / "outbox.jsonl")
    monkeypatch.setenv("AUTHGATE_OUTBOX", path)
    caches.reset()
    uri = receiver.url("/backchannel")
    with_backchannel("demo-web", uri)
    session = used_by(signed_in(browser), "demo-web")
    logout(browser, [("id_token_hint", hint(session))])
    assert poll() == 1
    (entry,) = outbox.read(path, "backchannel_logout")
    token = entry.pop("logout_token")
    assert verified(token, "demo-web")[1]["sid"] == session.sid
    assert {k: v for k, v in entry.items() if k not in ("id", "created_at")} == {
        "kind": "backchannel_logout", "client_id": "demo-web", "uri": uri, "sub": ALICE, "sid": session.sid,
        "outcome": "delivered", "attempt": 1, "detail": "HTTP 200"}
