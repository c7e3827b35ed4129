"""tokens.jose_header: the header checks client assertions and DPoP proofs share (RFC 7515 4.1.9, 4.1.11)."""

from __future__ import annotations

import pytest

from authgate.tokens.jose_header import HeaderRejected, checked_alg, typ_is

ALGS = ("ES256", "PS256")


def rejected(header: dict[str, object], **kwargs: str) -> str:
    with pytest.raises(HeaderRejected) as caught:
        checked_alg(header, ALGS, **kwargs)
    return caught.value.member


def test_typ_compares_as_a_media_type() -> None:
    for typ in ("dpop+jwt", "DPoP+JWT", "application/dpop+jwt", "Application/DPOP+jwt"):
        assert typ_is({"typ": typ}, "dpop+jwt"), typ
    for typ in (None, 1, "jwt", "application/jwt", "text/dpop+jwt", " dpop+jwt"):
        assert not typ_is({"typ": typ}, "dpop+jwt"), typ


def test_the_alg_comes_from_the_allow_list_and_nothing_else() -> None:
    assert checked_alg({"alg": "ES256"}, ALGS) == "ES256"
    for alg in (None, "none", "HS256", "RS256", "es256", ["ES256"], 1):
        assert rejected({"alg": alg}) == "alg", alg


def test_checks_run_typ_then_alg_then_crit() -> None:
    assert checked_alg({"typ": "dpop+jwt", "alg": "PS256", "kid": 7}, ALGS, typ="dpop+jwt") == "PS256"
    assert rejected({"typ": "jwt", "alg": "HS256", "crit": ["b64"]}, typ="dpop+jwt") == "typ"
    assert rejected({"alg": "HS256", "crit": ["b64"]}) == "alg"
    assert rejected({"alg": "ES256", "crit": []}) == "crit"  # even an empty list names no extension we know
    assert checked_alg({"typ": "anything", "alg": "ES256"}, ALGS) == "ES256"  # no typ asked: none checked
