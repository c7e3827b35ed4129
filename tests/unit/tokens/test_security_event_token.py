"""Security Event Tokens as SSF 1.0 4.1 profiles RFC 8417 (tokens.security_event_token)."""

from __future__ import annotations

import jwt
import pytest

from authgate.tokens.security_event_token import new_jti, sign_set

pytestmark = pytest.mark.usefixtures("keys")


def test_a_set_is_typed_secevent_jwt_rs256_and_never_carries_sub_or_exp() -> None:
    from authgate.tokens.jwk_set import jwk_set

    claims = {"iss": "https://auth.example.com", "jti": "j1", "iat": 1, "aud": "rp", "txn": "t",
              "sub_id": {"format": "opaque", "id": "s"}, "events": {"urn:e": {}}, "sub": "x", "exp": 2}
    token = sign_set(claims)
    header = jwt.get_unverified_header(token)
    (key,) = [k for k in jwk_set()["keys"] if k["kid"] == header["kid"]]
    decoded = jwt.decode(token, jwt.PyJWK(key).key, algorithms=["RS256"], audience="rp",
                         options={"verify_exp": False})
    assert (header["typ"], header["alg"]) == ("secevent+jwt", "RS256")
    assert decoded == {k: v for k, v in claims.items() if k not in ("sub", "exp")}


def test_jti_values_sort_in_the_order_they_were_made() -> None:
    made = [new_jti(ms) for ms in (1_750_000_000_000, 1_750_000_000_001, 1_750_000_001_000)]
    assert made == sorted(made) and len(set(made)) == 3 and all(len(jti) == 32 for jti in made)
