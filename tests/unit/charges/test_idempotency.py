"""The Idempotency-Key header: 1-255 visible ASCII characters, sent once."""

from __future__ import annotations

import pytest

from authgate.charges.idempotency import digest, fingerprint, idempotency_key
from authgate.errors import ApiError
from authgate.http.headers import Headers
from authgate.http.request import Request


def request(*values: str) -> Request:
    return Request("POST", "/charges", "/charges", {}, Headers(("Idempotency-Key", v) for v in values),
                   {}, b"", "127.0.0.1", "gw", "local", "127.0.0.1")


def test_absent_key_is_none_and_good_keys_pass():
    assert idempotency_key(request()) is None
    assert idempotency_key(request("a")) == "a"
    assert idempotency_key(request("~" * 255)) == "~" * 255


@pytest.mark.parametrize("values", [("",), ("a" * 256,), ("a b",), ("é",), ("a\x7f",), ("a", "a")])
def test_bad_keys_are_400(values):
    with pytest.raises(ApiError) as info:
        idempotency_key(request(*values))
    assert (info.value.code, info.value.status) == ("invalid_idempotency_key", 400)
    assert info.value.field_errors[0].location == "header"


def test_scope_and_fingerprint():
    assert digest("a", "k") != digest("b", "k")
    assert "secret" not in digest("a", "secret-k")
    assert fingerprint({"amount": 1, "currency": "usd"}) == fingerprint({"currency": "usd", "amount": 1})
    assert fingerprint({"amount": 1, "currency": "usd"}) != fingerprint({"amount": 2, "currency": "usd"})
