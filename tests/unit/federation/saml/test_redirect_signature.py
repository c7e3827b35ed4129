"""signed_query(): authgate's own requests signed by the HTTP-Redirect binding (SAML Bindings 3.4.4.1)."""

from __future__ import annotations

import base64
from urllib.parse import parse_qsl, quote_plus

import pytest
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding

from authgate.federation.errors import UpstreamRefused
from authgate.federation.saml.redirect_signature import RSA_SHA256, octets, signed_query, verify
from tests.saml_support import signing_key

# A DEFLATEd, base64 message as a request carries it: "+", "/" and "=" must be percent-encoded.
MESSAGE = "fZBPa+MwEMW/ic5/KeFCHq/Qw=="
ENCODED_SIG_ALG = "http%3A%2F%2Fwww.w3.org%2F2001%2F04%2Fxmldsig-more%23rsa-sha256"


def check_signature(octet_string: str, signature_b64: str) -> None:
    """The signature verifies over `octet_string` with the SP certificate's public key: RSASSA-PKCS1-v1_5, SHA-256."""
    cert = x509.load_pem_x509_certificate(signing_key("sp").cert_pem.encode())
    cert.public_key().verify(base64.b64decode(signature_b64), octet_string.encode("ascii"),  # type: ignore[union-attr,call-arg]
                             padding.PKCS1v15(), hashes.SHA256())  # type: ignore[arg-type]


def test_the_octet_string_is_the_url_encoded_values_in_the_bindings_order() -> None:
    query = signed_query("SAMLRequest", MESSAGE, "st 1&x=é", signing_key("sp").key)  # type: ignore[arg-type]
    signed, _, signature = query.partition("&Signature=")
    assert signed == (f"SAMLRequest=fZBPa%2BMwEMW%2Fic5%2FKeFCHq%2FQw%3D%3D&RelayState=st+1%26x%3D%C3%A9"
                      f"&SigAlg={ENCODED_SIG_ALG}")
    sent = dict(parse_qsl(query))["Signature"]
    check_signature(signed, sent)
    assert (signature, len(base64.b64decode(sent))) == (quote_plus(sent, safe=""), 256)
    assert [name for name, _ in parse_qsl(query)] == ["SAMLRequest", "RelayState", "SigAlg", "Signature"]


def test_without_relay_state_it_is_left_out_of_the_query_and_the_signed_octets() -> None:
    query = signed_query("SAMLRequest", MESSAGE, "", signing_key("sp").key)  # type: ignore[arg-type]
    signed, _, _ = query.partition("&Signature=")
    assert signed == f"SAMLRequest=fZBPa%2BMwEMW%2Fic5%2FKeFCHq%2FQw%3D%3D&SigAlg={ENCODED_SIG_ALG}"
    check_signature(signed, dict(parse_qsl(query))["Signature"])


def test_the_signature_is_over_exactly_those_octets_and_nothing_else() -> None:
    query = signed_query("SAMLRequest", MESSAGE, "st-1", signing_key("sp").key)  # type: ignore[arg-type]
    signature = dict(parse_qsl(query))["Signature"]
    reordered = octets([("RelayState", "st-1"), ("SAMLRequest", MESSAGE), ("SigAlg", RSA_SHA256)])
    for other in (reordered, octets([("SAMLRequest", MESSAGE), ("RelayState", "st-2"), ("SigAlg", RSA_SHA256)])):
        with pytest.raises(InvalidSignature):
            check_signature(other, signature)


def test_the_receivers_check_takes_it_and_refuses_it_altered() -> None:
    params = dict(parse_qsl(signed_query("SAMLRequest", MESSAGE, "st-1", signing_key("sp").key)))  # type: ignore[arg-type]
    verify(params, "SAMLRequest", (signing_key("sp").cert_pem,))
    for altered in ({**params, "RelayState": "st-2"}, {**params, "SAMLRequest": MESSAGE[:-4]}):
        with pytest.raises(UpstreamRefused) as caught:
            verify(altered, "SAMLRequest", (signing_key("sp").cert_pem,))
        assert caught.value.reason == "signature_invalid"
    with pytest.raises(UpstreamRefused):
        verify(params, "SAMLRequest", (signing_key("idp").cert_pem,))
