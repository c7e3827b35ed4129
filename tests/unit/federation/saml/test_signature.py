"""signature.verified: SAML's enveloped signature shape, the IdP's certificates only, an algorithm allow-list,
and the covered tree returned."""

from __future__ import annotations

import copy

import pytest
from lxml import etree
from signxml.algorithms import DigestAlgorithm, SignatureMethod

from authgate.federation.saml.safe_xml import parser
from authgate.federation.saml.signature import SignatureInvalid, verified
from authgate.federation.saml.vocabulary import ds, saml
from tests.saml_support import assertion, sign, signing_key

IDP = signing_key()


def reason(element: etree._Element, *keys: object) -> str:
    with pytest.raises(SignatureInvalid) as caught:
        verified(element, tuple(k.cert_pem for k in (keys or (IDP,))), parser())  # type: ignore[attr-defined]
    return caught.value.reason


def test_the_covered_tree_is_returned_without_its_signature() -> None:
    signed = sign(assertion())
    covered = verified(signed, (IDP.cert_pem,), parser())
    assert covered.find(ds("Signature")) is None
    assert covered.find(f"{saml('Subject')}/{saml('NameID')}").text == "dana-7f3a"
    assert covered.get("ID") == "_assertion0001"


def test_a_comment_added_after_signing_is_not_in_the_covered_tree() -> None:
    signed = sign(assertion())
    name_id = signed.find(f"{saml('Subject')}/{saml('NameID')}")
    name_id.text = "dana-"
    comment = etree.Comment("x")
    comment.tail = "7f3a"
    name_id.append(comment)
    covered = verified(signed, (IDP.cert_pem,), parser())
    assert etree.tostring(covered.find(f"{saml('Subject')}/{saml('NameID')}"), with_tail=False).endswith(
        b">dana-7f3a</saml:NameID>")


@pytest.mark.parametrize(("method", "digest"), [
    (SignatureMethod.RSA_SHA384, DigestAlgorithm.SHA384),
    (SignatureMethod.RSA_SHA512, DigestAlgorithm.SHA512),
    (SignatureMethod.SHA256_RSA_MGF1, DigestAlgorithm.SHA256),
])
def test_rsa_with_sha2_and_pss_verify(method: SignatureMethod, digest: DigestAlgorithm) -> None:
    assert verified(sign(assertion(), method=method, digest=digest), (IDP.cert_pem,), parser()) is not None


def test_ecdsa_verifies() -> None:
    key = signing_key("idp-ec", curve=True)
    signed = sign(assertion(), key, method=SignatureMethod.ECDSA_SHA256)
    assert verified(signed, (key.cert_pem,), parser()) is not None


@pytest.mark.parametrize(("method", "digest"), [
    (SignatureMethod.RSA_SHA1, DigestAlgorithm.SHA1),
    (SignatureMethod.RSA_SHA256, DigestAlgorithm.SHA1),
    (SignatureMethod.RSA_SHA1, DigestAlgorithm.SHA256),
])
def test_sha1_is_refused(method: SignatureMethod, digest: DigestAlgorithm) -> None:
    assert reason(sign(assertion(), method=method, digest=digest)) == "signature_invalid"


def test_a_certificate_the_message_carries_is_never_trusted() -> None:
    """The attacker's signature embeds the attacker's certificate in KeyInfo; only the record's count."""
    attacker = signing_key("attacker")
    assert reason(sign(assertion(), attacker)) == "signature_invalid"


def test_an_expired_configured_certificate_still_verifies() -> None:
    """The administrator's configuration is the trust (Metadata Interoperability Profile): dates are not checked."""
    old = signing_key("idp-2020", expired=True)
    assert verified(sign(assertion(), old), (old.cert_pem,), parser()).get("ID") == "_assertion0001"


def test_two_signatures_are_refused() -> None:
    signed = sign(assertion())
    signed.append(copy.deepcopy(signed.find(ds("Signature"))))
    assert reason(signed) == "signature_shape"


def test_a_signature_over_part_of_the_element_is_refused() -> None:
    signed = sign(assertion())
    signed.find(f".//{ds('Reference')}").set("URI", "#_something-else")
    assert reason(signed) == "signature_shape"


def test_an_unsigned_element_is_refused() -> None:
    assert reason(assertion()) == "unsigned"
