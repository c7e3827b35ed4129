"""federation.oidc.apple: the ES256 client secret Apple asks for, checked with PyJWT; the name of the first form POST."""

from __future__ import annotations

import json

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from authgate.federation.oidc.apple import check_private_key, client_secret, user_name

NOW = 1_750_000_000


def p8(key: object) -> str:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,  # type: ignore[attr-defined]
                             serialization.NoEncryption()).decode()


def test_the_client_secret_is_what_apple_documents() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    secret = client_secret(team_id="TEAM123456", key_id="KEY1234567", client_id="com.acme.signin",
                           private_key_pem=p8(key), now=NOW)
    assert jwt.get_unverified_header(secret) == {"alg": "ES256", "kid": "KEY1234567"}
    claims = jwt.decode(secret, key.public_key(), algorithms=["ES256"], audience="https://appleid.apple.com",
                        options={"verify_exp": False})
    assert claims == {"iss": "TEAM123456", "iat": NOW, "exp": NOW + 300, "aud": "https://appleid.apple.com",
                      "sub": "com.acme.signin"}


def test_only_an_ec_p256_private_key_will_do() -> None:
    check_private_key(p8(ec.generate_private_key(ec.SECP256R1())))
    with pytest.raises(TypeError):
        check_private_key(p8(ec.generate_private_key(ec.SECP384R1())))
    with pytest.raises(TypeError):
        check_private_key(p8(rsa.generate_private_key(65537, 2048)))
    with pytest.raises(ValueError):
        check_private_key("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n")


def test_the_name_comes_from_the_first_form_post_s_user_field() -> None:
    user = {"name": {"firstName": "Carol", "lastName": "Appleseed"}, "email": "carol@privaterelay.appleid.com"}
    assert user_name(json.dumps(user)) == "Carol Appleseed"
    assert user_name(json.dumps({"name": {"firstName": "Carol"}})) == "Carol"
    for junk in (None, "", "not json", "[1]", json.dumps({"name": "Carol"}), "x" * 5000):
        assert user_name(junk) == ""
