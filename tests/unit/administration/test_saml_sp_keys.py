"""administration.saml_sp_keys: add, rotate and retire the stack's SAML signing key (what `authgate saml-keys` runs)."""

from __future__ import annotations

import pytest

from authgate.administration.saml_sp_keys import (
    add,
    added,
    checked,
    common_name,
    found,
    listed,
    retire,
    retired,
)
from authgate.federation.saml import sp_keys
from authgate.operators.input import InvalidInput
from authgate.stores.saml_sp_keys import SamlSpKeyStore
from tests.conftest import START

pytestmark = [pytest.mark.usefixtures("aws"), pytest.mark.slow]  # two RSA 3072 keys made


def test_the_first_key_signs_a_second_is_published_and_retiring_the_first_makes_the_second_sign() -> None:
    assert listed() == []
    first = add("authgate SAML SP https://auth.example.com", now=START)
    second = add("authgate SAML SP https://auth.example.com", now=START + 60)
    assert [(k.fingerprint, k.signs, k.created_at) for k in listed()] == [
        (first.fingerprint, True, START), (second.fingerprint, False, START + 60)]
    assert (first.signs, second.signs, first.not_after - START) == (True, False, 3650 * 86400)
    assert sp_keys.signer().certificate == first.certificate  # type: ignore[union-attr]
    with pytest.raises(InvalidInput) as caught:
        add("authgate SAML SP https://auth.example.com", now=START)
    assert str(caught.value) == "the stack has two SAML signing keys already: retire the signing one first"
    assert retire().fingerprint == first.fingerprint
    assert [(k.fingerprint, k.signs) for k in listed()] == [(second.fingerprint, True)]
    assert retire().fingerprint == second.fingerprint
    assert (listed(), SamlSpKeyStore().read().version) == ([], 4)
    with pytest.raises(InvalidInput) as caught:
        retire()
    assert str(caught.value) == "the stack has no SAML signing key"


def test_a_key_is_found_by_its_fingerprint_in_either_case_and_said_in_the_commands_words() -> None:
    key = add(common_name("https://auth.example.com"), now=START)
    assert found(key.fingerprint.lower()) == key and found(":".join(["AB"] * 32)) is None
    assert added(key) == f"added, signing: {key.fingerprint}"
    assert added(key._replace(signs=False)) == f"added, published beside the signing key: {key.fingerprint}"
    assert retired(key) == f"retired: {key.fingerprint}"


@pytest.mark.parametrize("fingerprint", ["nosuch", ":".join(["AB"] * 31), ":".join(["AG"] * 32), "AB" * 32])
def test_a_fingerprint_not_as_list_prints_it_is_refused(fingerprint: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        checked(fingerprint)
    assert str(caught.value) == (f"FINGERPRINT {fingerprint!r} is not a SHA-256 fingerprint (32 hex pairs joined by "
                                 "colons, as `authgate saml-keys list` prints it)")
