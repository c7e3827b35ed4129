"""deliveries.approval_webhook: a tenant's CIBA approval webhook, queued for every request and signed when sent."""

from __future__ import annotations

import json

import pytest

from authgate.deliveries.approval_webhook import (
    KIND,
    SIGNATURE_TYPE,
    deliver,
    detached_signature,
    is_message,
    queued,
)

PAYLOAD = {"binding_message": "Order 42", "approve": "https://auth.example.com/oauth/approve#link"}


def test_a_request_and_a_hint_that_names_nobody_are_queued_alike() -> None:
    assert queued("demo", "https://hooks.example/approve", PAYLOAD) == {
        "kind": KIND, "tenant": "demo", "url": "https://hooks.example/approve", "payload": PAYLOAD}
    assert queued("demo", "https://hooks.example/approve", None)["payload"] is None
    assert is_message(queued("demo", "https://hooks.example/approve", None))


@pytest.mark.parametrize("message", [
    {"kind": KIND, "tenant": "demo", "url": 7, "payload": None},
    {"kind": KIND, "url": "https://hooks.example/approve", "payload": None},
    {"kind": KIND, "tenant": "demo", "url": "https://hooks.example/approve", "payload": ["x"]},
    {"kind": "mail", "tenant": "demo", "url": "https://hooks.example/approve", "payload": None},
])
def test_what_is_not_a_webhook_this_version_sends(message: dict[str, object]) -> None:
    assert not is_message(message)


def test_a_webhook_for_nobody_is_dropped_without_a_request() -> None:
    """No AWS and no network here: nothing is signed or sent."""
    assert deliver(queued("demo", "https://hooks.example/approve", None), 1) == "dropped"


def test_the_signature_is_a_detached_unencoded_jws_of_the_exact_body(keys: None) -> None:
    """RFC 7797 (b64 false) and RFC 7515 Appendix F: `header..signature`, verified as a receiver does, with PyJWT
    against the published JWK Set."""
    import jwt

    from authgate.tokens.jwk_set import jwk_set

    body = json.dumps(PAYLOAD, separators=(",", ":")).encode("utf-8")
    signature = detached_signature(body)
    _, empty, _ = signature.split(".")
    header = jwt.get_unverified_header(signature)
    assert empty == "" and header == {"alg": "RS256", "kid": header["kid"], "typ": SIGNATURE_TYPE, "b64": False,
                                      "crit": ["b64"]}
    key = jwt.PyJWKSet.from_dict(jwk_set())[header["kid"]]
    assert jwt.api_jws.PyJWS().decode(signature, key.key, algorithms=["RS256"], detached_payload=body) == body
    with pytest.raises(jwt.InvalidSignatureError):
        jwt.api_jws.PyJWS().decode(signature, key.key, algorithms=["RS256"], detached_payload=body + b" ")
