"""logout_response.check(): the IdP's LogoutResponse by HTTP-Redirect, each rule refusing on its own."""

from __future__ import annotations

import base64
import zlib
from typing import Any

import pytest

from authgate.federation.errors import UpstreamRefused
from authgate.federation.saml.logout_response import check
from authgate.federation.saml.vocabulary import SUCCESS
from tests.saml_support import (
    REQUEST_ID,
    SLO_URL,
    logout_response,
    record,
    redirect_query,
    sign,
    signing_key,
)

RESPONDER = "urn:oasis:names:tc:SAML:2.0:status:Responder"


def checked(params: list[tuple[str, str]], expected: str = REQUEST_ID) -> None:
    check(record(), dict(params), slo_url=SLO_URL, expected_request_id=expected)


def refusal(params: list[tuple[str, str]], expected: str = REQUEST_ID) -> tuple[str, str]:
    with pytest.raises(UpstreamRefused) as caught:
        checked(params, expected)
    return caught.value.reason, caught.value.internal


def test_an_unsigned_success_answering_the_request_is_taken() -> None:
    checked(redirect_query(logout_response(), "st-1"))
    checked(redirect_query(logout_response(destination=None)))  # Destination is optional when unsigned


@pytest.mark.parametrize("lower_hex", [False, True])
def test_a_query_signature_by_the_idps_key_is_taken_however_its_hex_is_cased(lower_hex: bool) -> None:
    checked(redirect_query(logout_response(), "st-1", signing_key(), lower_hex=lower_hex))


def test_an_enveloped_signature_by_the_idps_key_is_taken() -> None:
    checked(redirect_query(sign(logout_response()), "st-1"))


@pytest.mark.parametrize(("message", "params", "expected"), [
    ("signed by another key", redirect_query(logout_response(), "st-1", signing_key("other")),
     ("signature_invalid", "the query's signature does not verify with the IdP's certificates")),
    ("altered after signing", [(k, "st-2" if k == "RelayState" else v)
                               for k, v in redirect_query(logout_response(), "st-1", signing_key())],
     ("signature_invalid", "the query's signature does not verify with the IdP's certificates")),
    ("SHA-1", redirect_query(logout_response(), "st-1", signing_key(),
                             sig_alg="http://www.w3.org/2000/09/xmldsig#rsa-sha1"),
     ("signature_algorithm", "SigAlg 'http://www.w3.org/2000/09/xmldsig#rsa-sha1'")),
    ("a SigAlg without its Signature", [*redirect_query(logout_response(), "st-1"), ("SigAlg", "x")],
     ("signature_algorithm", "SigAlg 'x'")),
    ("signed without Destination", redirect_query(logout_response(destination=None), "st-1", signing_key()),
     ("destination", "the LogoutResponse's Destination is not authgate's SLO URL")),
    ("to another SLO URL", redirect_query(logout_response(destination="https://sp.example/slo")),
     ("destination", "the LogoutResponse's Destination is not authgate's SLO URL")),
    ("for another request", redirect_query(logout_response(in_response_to="_other")),
     ("in_response_to", "the LogoutResponse does not answer the LogoutRequest sent")),
    ("unsolicited", redirect_query(logout_response(in_response_to=None)),
     ("in_response_to", "an unsolicited LogoutResponse (no InResponseTo)")),
    ("from another IdP", redirect_query(logout_response(issuer="https://evil.example/saml")),
     ("issuer", "the LogoutResponse's Issuer is not the IdP's entity ID")),
    ("without Issuer", redirect_query(logout_response(issuer=None)),
     ("issuer", "the LogoutResponse's Issuer is not the IdP's entity ID")),
    ("a failure", redirect_query(logout_response(status=RESPONDER)), ("status", "the IdP answered Responder")),
    ("no SAMLResponse", [("RelayState", "st-1")], ("not_a_logout_response", "no SAMLResponse")),
    ("not base64", [("SAMLResponse", "%%%")], ("not_base64", "SAMLResponse is not base64")),
    ("not deflated", [("SAMLResponse", base64.b64encode(b"\xff\xff<x/>").decode())],
     ("not_deflated", "the message is not DEFLATE-compressed (Bindings 3.4.4.1)")),
])
def test_each_rule_refuses(message: str, params: list[tuple[str, str]], expected: tuple[str, str]) -> None:
    assert refusal(params) == expected, message


def test_an_enveloped_signature_by_another_key_is_refused() -> None:
    assert refusal(redirect_query(sign(logout_response(), signing_key("other"))))[0] == "signature_invalid"


def test_another_message_or_version_is_refused() -> None:
    other = logout_response()
    other.tag = other.tag.replace("LogoutResponse", "Response")
    assert refusal(redirect_query(other)) == ("not_a_logout_response", "the message is a Response")
    old = logout_response()
    old.set("Version", "1.1")
    assert refusal(redirect_query(old)) == ("version", "LogoutResponse Version '1.1'")


def test_a_response_that_inflates_past_the_bound_is_refused_before_parsing() -> None:
    bomb = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = bomb.compress(b"<a>" + b" " * 200_000 + b"</a>") + bomb.flush()
    assert refusal([("SAMLResponse", base64.b64encode(data).decode())]) == (
        "too_large", "the message inflates to more than 65536 bytes")


def test_a_doctype_is_refused() -> None:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    xml = b'<!DOCTYPE x [<!ENTITY e "y">]><samlp:LogoutResponse xmlns:samlp="urn:x"/>'
    data = compressor.compress(xml) + compressor.flush()
    assert refusal([("SAMLResponse", base64.b64encode(data).decode())])[0] == "doctype"


def test_an_enveloped_signature_over_a_message_changed_after_signing_is_refused() -> None:
    signed: Any = sign(logout_response(status=RESPONDER))
    signed.find(".//{urn:oasis:names:tc:SAML:2.0:protocol}StatusCode").set("Value", SUCCESS)
    assert refusal(redirect_query(signed))[0] == "signature_invalid"
