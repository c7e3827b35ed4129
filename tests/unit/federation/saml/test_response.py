"""finish(): the IdP's HTTP-POST Response taken only when every rule holds, and each attack refused by name.

Forged messages are built with lxml and signxml's XMLSigner (tests/saml_support.py). Every test
asserts the whole outcome: the UpstreamIdentity, or the refusal's reason code.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator

import boto3
import pytest
from lxml import etree

from authgate.federation.errors import UpstreamRefused
from authgate.federation.saml import finish
from authgate.federation.saml.vocabulary import EMAIL_ADDRESS, TRANSIENT, ds, saml, samlp
from authgate.federation.upstream import UpstreamIdentity
from tests.saml_support import (
    ACS_URL,
    IDP_ENTITY_ID,
    REQUEST_ID,
    SP_ENTITY_ID,
    START,
    assertion,
    encoded,
    record,
    response,
    sign,
    signed_response,
    signing_key,
)

pytestmark = pytest.mark.usefixtures("aws", "clock")

DANA = UpstreamIdentity(
    tenant_id="acme", issuer=IDP_ENTITY_ID, subject="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent|dana-7f3a",
    email="dana@democorp.example", name="Dana Demo", groups=("staff", "finance"),
    acr="urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport", auth_time=START - 5,
    session_id="_session-1")


def run(saml_response: str, idp=None, **expected: str) -> UpstreamIdentity:
    return finish(idp or record(), saml_response_b64=saml_response, acs_url=expected.get("acs_url", ACS_URL),
                  sp_entity_id=expected.get("sp_entity_id", SP_ENTITY_ID),
                  expected_request_id=expected.get("request_id", REQUEST_ID))


def refusal(saml_response: str, idp=None, **expected: str) -> str:
    with pytest.raises(UpstreamRefused) as caught:
        run(saml_response, idp, **expected)
    return caught.value.reason


# -- what an honest IdP sends ---------------------------------------------------------------------------------------

def test_a_signed_assertion_in_an_unsigned_response_gives_the_person_it_names() -> None:
    assert run(signed_response()) == DANA


def test_a_signed_assertion_in_a_signed_response_gives_the_same_person() -> None:
    assert run(encoded(sign(response(sign(assertion()))))) == DANA


def test_base64_wrapped_at_76_characters_is_read() -> None:
    raw = signed_response()
    assert run("\r\n".join(raw[i:i + 76] for i in range(0, len(raw), 76))) == DANA


def test_the_records_claim_mapping_picks_the_attributes() -> None:
    signed = signed_response(attributes={"urn:oid:0.9.2342.19200300.100.1.3": ["dana@democorp.example"],
                                         "workEmail": ["d.demo@democorp.example"], "cn": ["Dana D."],
                                         "roles": ["approver"], "memberOf": ["staff"]})
    got = run(signed, record(email="workEmail", name="cn", groups="roles"))
    assert (got.email, got.name, got.groups) == ("d.demo@democorp.example", "Dana D.", ("approver",))


def test_without_attributes_the_person_is_still_named_by_the_name_id() -> None:
    assert run(signed_response(attributes={})) == DANA._replace(email="", name="", groups=())


def test_an_email_address_name_id_is_kept_with_its_format() -> None:
    got = run(signed_response(name_id="dana@democorp.example", name_format=EMAIL_ADDRESS))
    assert got.subject == "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress|dana@democorp.example"


def test_a_name_id_without_format_is_unspecified() -> None:
    assert run(signed_response(name_format=None)).subject == (
        "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified|dana-7f3a")


def test_the_second_of_two_configured_certificates_verifies_a_rolled_over_key() -> None:
    new_key = signing_key("idp-2026")
    signed = encoded(response(sign(assertion(), new_key)))
    assert run(signed, record(signing_key(), new_key)) == DANA


def test_the_assertion_id_is_spent_once_in_the_replay_table_until_its_window_ends() -> None:
    run(signed_response())
    items = boto3.client("dynamodb").scan(TableName="ReplayTable")["Items"]
    assert [item["expires_at"] for item in items] == [{"N": str(START + 300 + 120)}]


# -- attacks --------------------------------------------------------------------------------------------------------

def test_a_replayed_assertion_is_refused() -> None:
    signed = signed_response()
    run(signed)
    assert refusal(signed) == "replayed"


def test_the_same_assertion_inside_a_fresh_response_is_still_a_replay() -> None:
    signed_assertion = sign(assertion())
    run(encoded(response(copy.deepcopy(signed_assertion), response_id="_r1")))
    assert refusal(encoded(response(signed_assertion, response_id="_r2"))) == "replayed"


def test_a_wrong_audience_is_refused() -> None:
    assert refusal(signed_response(audience="https://another-sp.example/saml")) == "audience"


def test_an_assertion_for_another_tenants_sp_is_refused() -> None:
    assert refusal(signed_response(), sp_entity_id=f"{SP_ENTITY_ID}-other") == "audience"


def test_an_expired_assertion_is_refused() -> None:
    assert refusal(signed_response(not_on_or_after=START - 121)) == "expired"


def test_an_expired_bearer_confirmation_is_refused() -> None:
    assert refusal(signed_response(confirmation_until=START - 121)) == "expired"


def test_expiry_within_the_leeway_is_accepted() -> None:
    assert run(signed_response(not_on_or_after=START - 100, confirmation_until=START - 100)) == DANA


def test_an_assertion_not_yet_valid_is_refused() -> None:
    assert refusal(signed_response(not_before=START + 121)) == "not_yet_valid"


def test_an_unsigned_assertion_is_refused() -> None:
    assert refusal(encoded(response(assertion()))) == "unsigned"


def test_an_unsigned_assertion_in_a_signed_response_is_refused() -> None:
    assert refusal(encoded(sign(response(assertion())))) == "unsigned"


def test_an_assertion_re_signed_by_another_key_is_refused() -> None:
    """The attacker changes the NameID and signs again with their own key and certificate (in KeyInfo)."""
    forged = sign(assertion(name_id="ceo-0001"), signing_key("attacker"))
    assert refusal(encoded(response(forged))) == "signature_invalid"


def test_an_assertion_changed_after_signing_is_refused() -> None:
    signed = sign(assertion())
    signed.find(f"{saml('Subject')}/{saml('NameID')}").text = "ceo-0001"
    assert refusal(encoded(response(signed))) == "signature_invalid"


def test_a_valid_assertion_in_a_response_re_signed_by_another_key_is_refused() -> None:
    assert refusal(encoded(sign(response(sign(assertion())), signing_key("attacker")))) == "signature_invalid"


def test_an_assertion_from_another_idp_is_refused() -> None:
    """IdP B's honest response to a sign-in the tenant started with IdP A."""
    other = signing_key("other-idp")
    signed = encoded(response(sign(assertion(issuer="https://other-idp.example"), other),
                              issuer="https://other-idp.example"))
    assert refusal(signed) == "issuer"


def test_another_idps_assertion_naming_this_idp_as_issuer_is_refused() -> None:
    signed = encoded(response(sign(assertion(), signing_key("other-idp"))))
    assert refusal(signed) == "signature_invalid"


def test_this_idps_key_signing_an_assertion_that_names_another_issuer_is_refused() -> None:
    assert refusal(encoded(response(sign(assertion(issuer="https://other-idp.example")), issuer=None))) == "issuer"


def test_a_response_answering_another_request_is_refused() -> None:
    assert refusal(signed_response(), request_id="_another-request") == "in_response_to"


def test_an_unsolicited_response_is_refused() -> None:
    assert refusal(encoded(response(sign(assertion()), in_response_to=None))) == "in_response_to"


def test_a_bearer_confirmation_answering_another_request_is_refused() -> None:
    assert refusal(signed_response(in_response_to="_another-request")) == "in_response_to"


def test_a_response_for_another_destination_is_refused() -> None:
    assert refusal(encoded(response(sign(assertion()), destination="https://evil.example/acs"))) == "destination"


def test_a_signed_response_without_destination_is_refused() -> None:
    assert refusal(encoded(sign(response(sign(assertion()), destination=None)))) == "destination"


def test_an_unsigned_response_without_destination_is_taken() -> None:
    assert run(encoded(response(sign(assertion()), destination=None))) == DANA


def test_a_bearer_confirmation_for_another_recipient_is_refused() -> None:
    assert refusal(signed_response(recipient="https://evil.example/acs")) == "recipient"


def test_a_failed_status_is_refused_with_the_idps_codes() -> None:
    with pytest.raises(UpstreamRefused) as caught:
        run(encoded(response(status="urn:oasis:names:tc:SAML:2.0:status:Responder")))
    assert (caught.value.reason, caught.value.internal) == ("status", "the IdP answered Responder")


def test_a_transient_name_id_is_refused() -> None:
    assert refusal(signed_response(name_format=TRANSIENT)) == "transient_name_id"


def test_a_comment_in_the_name_id_is_refused() -> None:
    """`user@evil.com<!---->.example`: exclusive c14n drops the comment, so the signature still verifies;
    a reader that stops at the first text node would see user@evil.com (CVE-2017-11427 and its kin)."""
    signed = sign(assertion(name_id="user@evil.com.example", name_format=EMAIL_ADDRESS))
    name_id = signed.find(f"{saml('Subject')}/{saml('NameID')}")
    name_id.text = "user@evil.com"
    comment = etree.Comment("")
    comment.tail = ".example"
    name_id.append(comment)
    assert refusal(encoded(response(signed))) == "xml_comment"


def test_an_encrypted_assertion_is_refused_as_not_supported() -> None:
    r = response()
    etree.SubElement(etree.SubElement(r, saml("EncryptedAssertion")), "{http://www.w3.org/2001/04/xmlenc#}EncryptedData")
    assert refusal(encoded(r)) == "encrypted_assertion"


def test_a_doctype_with_an_external_entity_is_refused() -> None:
    xml = (b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "http://127.0.0.1:9/secret">]>'
           + etree.tostring(response(sign(assertion()))).replace(b"dana-7f3a", b"&x;"))
    assert refusal(encoded(xml)) == "doctype"


def test_a_response_that_is_not_base64_is_refused() -> None:
    assert refusal("PHNhbWxwOlJlc3BvbnNlPg==!") == "not_base64"


def test_a_response_that_is_too_large_is_refused() -> None:
    assert refusal("A" * (400 * 1024)) == "too_large"
    assert refusal(" " * (800 * 1024)) == "too_large"


def test_a_logout_request_posted_as_a_response_is_refused() -> None:
    assert refusal(encoded(etree.Element(samlp("LogoutRequest"), ID="_x", Version="2.0"))) == "not_a_response"


# -- signature wrapping (Somorovsky et al., "On Breaking SAML", 2012: XSW3-XSW8 on a signed assertion) ---------------

def wrapped(place) -> str:
    """The honest signed assertion and an unsigned evil copy naming the CEO, arranged by `place`."""
    signed = sign(assertion())
    evil = copy.deepcopy(signed)
    evil.set("ID", "_evil")
    evil.remove(evil.find(ds("Signature")))
    evil.find(f"{saml('Subject')}/{saml('NameID')}").text = "ceo-0001"
    return encoded(place(signed, evil))


def test_xsw_an_evil_assertion_before_the_signed_one_is_refused() -> None:
    assert refusal(wrapped(lambda signed, evil: response(evil, signed))) == "assertion_count"


def test_xsw_an_evil_assertion_after_the_signed_one_is_refused() -> None:
    assert refusal(wrapped(lambda signed, evil: response(signed, evil))) == "assertion_count"


def test_xsw_the_signed_assertion_inside_the_evil_one_is_refused() -> None:
    def place(signed, evil):
        evil.append(signed)
        return response(evil)
    assert refusal(wrapped(place)) == "assertion_count"


def test_xsw_the_signed_assertion_moved_into_extensions_is_refused() -> None:
    def place(signed, evil):
        r = response(evil)
        extensions = etree.Element(samlp("Extensions"))
        extensions.append(signed)
        r.find(saml("Issuer")).addnext(extensions)
        return r
    assert refusal(wrapped(place)) == "assertion_count"


def test_xsw_the_signed_assertion_moved_into_the_evil_ones_signature_object_is_refused() -> None:
    def place(signed, evil):
        stolen = copy.deepcopy(signed.find(ds("Signature")))
        etree.SubElement(stolen, ds("Object")).append(signed)
        evil.find(saml("Issuer")).addnext(stolen)
        return response(evil)
    assert refusal(wrapped(place)) == "assertion_count"


def test_xsw_an_evil_assertion_carrying_the_signature_of_another_is_refused() -> None:
    """One assertion only: the evil one with the honest one's signature, whose reference names another ID."""
    def place(signed, evil):
        evil.find(saml("Issuer")).addnext(copy.deepcopy(signed.find(ds("Signature"))))
        return response(evil)
    assert refusal(wrapped(place)) == "signature_shape"


def test_xsw_an_evil_assertion_taking_the_signed_ones_id_fails_its_digest() -> None:
    def place(signed, evil):
        evil.set("ID", signed.get("ID"))
        evil.find(saml("Issuer")).addnext(copy.deepcopy(signed.find(ds("Signature"))))
        return response(evil)
    assert refusal(wrapped(place)) == "signature_invalid"


def test_xsw_an_evil_response_wrapping_the_signed_response_is_refused() -> None:
    """XSW1 on a signed Response: the honest signed Response moved inside an evil one's Extensions."""
    honest = sign(response(sign(assertion())))
    evil = response(response_id="_evil-response")
    extensions = etree.Element(samlp("Extensions"))
    extensions.append(honest)
    evil.find(saml("Issuer")).addnext(extensions)
    assert refusal(encoded(evil)) == "assertion_count"


# -- hostile bytes: any change to an honest response is a refusal, never another exception -------------------------

_HONEST = (response(sign(assertion())), sign(response(sign(assertion(assertion_id="_assertion0002")))))
_VALUES = ("", "!!", "#x", "2025-13-01T00:00:00Z", "http://www.w3.org/2000/09/xmldsig#rsa-sha1")


def changed_everywhere(change: str) -> Iterator[etree._Element]:
    """Each honest response with `change` made to one of its elements, for every element and value."""
    for honest in _HONEST:
        for index in range(sum(1 for e in honest.iter() if isinstance(e.tag, str))):
            for value in _VALUES:
                forged = copy.deepcopy(honest)
                element = [e for e in forged.iter() if isinstance(e.tag, str)][index]
                parent = element.getparent()
                if change == "no_text":
                    element.text = None
                elif change == "text":
                    element.text = value
                elif change == "remove" and parent is not None:
                    parent.remove(element)
                elif change == "attributes":
                    for name in element.attrib:
                        element.set(name, value)
                elif change == "no_attributes":
                    element.attrib.clear()
                elif change == "twice" and parent is not None:
                    element.addnext(copy.deepcopy(element))
                elif change == "child":
                    etree.SubElement(element, "{urn:example}extra").text = value
                yield forged


@pytest.mark.slow
@pytest.mark.parametrize("change", ["no_text", "text", "remove", "attributes", "no_attributes", "twice", "child"])
def test_any_change_to_an_honest_response_is_refused_by_name(change: str) -> None:
    """signxml meets an empty SignatureValue with a TypeError: it must be signature_invalid, never a 500."""
    escaped = []
    for forged in changed_everywhere(change):
        try:
            run(encoded(forged))
        except UpstreamRefused:
            pass
        except Exception as exc:  # noqa: BLE001 -- what the test looks for
            escaped.append(f"{type(exc).__name__}: {exc}"[:120])
    assert escaped == []
