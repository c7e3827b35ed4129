"""assertion.read: the rules of a verified assertion (Core 2.3-2.7, Profiles 4.1.4.2), one refusal each.

read() is given the tree a signature covers; here it is given honest trees changed one rule at a time."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from lxml import etree

from authgate.federation.errors import UpstreamRefused
from authgate.federation.saml.assertion import Assertion, Expected, read
from authgate.federation.saml.vocabulary import saml
from tests.saml_support import ACS_URL, IDP_ENTITY_ID, REQUEST_ID, SP_ENTITY_ID, START, assertion

EXPECTED = Expected(IDP_ENTITY_ID, SP_ENTITY_ID, ACS_URL, REQUEST_ID, START, 120)
SUBJECT, NAME_ID = saml("Subject"), f"{saml('Subject')}/{saml('NameID')}"
CONFIRMATION_DATA = f"{SUBJECT}/{saml('SubjectConfirmation')}/{saml('SubjectConfirmationData')}"


def changed(change: Callable[[etree._Element], object], **fields: object) -> etree._Element:
    element = assertion(**fields)  # type: ignore[arg-type]
    change(element)
    return element


def refusal(element: etree._Element) -> str:
    with pytest.raises(UpstreamRefused) as caught:
        read(element, EXPECTED)
    return caught.value.reason


def test_an_honest_assertion_reads_whole() -> None:
    assert read(assertion(), EXPECTED) == Assertion(
        id="_assertion0001", name_id="dana-7f3a", name_id_format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
        authn_instant=START - 5, session_index="_session-1",
        class_ref="urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport",
        attributes={"mail": ("dana@democorp.example",), "displayName": ("Dana Demo",), "memberOf": ("staff", "finance")},
        expires_at=START + 300)


def test_the_replay_window_is_the_earliest_not_on_or_after() -> None:
    assert read(assertion(confirmation_until=START + 60), EXPECTED).expires_at == START + 60


@pytest.mark.parametrize(("change", "reason"), [
    (lambda a: a.set("Version", "1.1"), "version"),
    (lambda a: a.remove(a.find(saml("Issuer"))), "issuer"),
    (lambda a: a.find(NAME_ID).set("NameQualifier", "https://other-idp.example"), "name_id"),
    (lambda a: a.find(NAME_ID).set("SPNameQualifier", "https://other-sp.example"), "name_id"),
    (lambda a: setattr(a.find(NAME_ID), "text", "  "), "name_id"),
    (lambda a: setattr(a.find(NAME_ID), "text", "x" * 257), "name_id"),
    (lambda a: setattr(a.find(NAME_ID), "text", "dana\tx"), "name_id"),
    (lambda a: etree.SubElement(a.find(NAME_ID), saml("Extra")), "name_id"),
    (lambda a: a.find(SUBJECT).replace(a.find(NAME_ID), etree.Element(saml("EncryptedID"))), "name_id"),
    (lambda a: a.find(CONFIRMATION_DATA).set("NotBefore", "2025-06-15T15:00:00Z"), "subject_confirmation"),
    (lambda a: a.find(CONFIRMATION_DATA).attrib.pop("NotOnOrAfter"), "subject_confirmation"),
    (lambda a: a.find(f"{SUBJECT}/{saml('SubjectConfirmation')}").set(
        "Method", "urn:oasis:names:tc:SAML:2.0:cm:holder-of-key"), "subject_confirmation"),
    (lambda a: a.remove(a.find(saml("Conditions"))), "conditions"),
    (lambda a: a.find(saml("Conditions")).set("NotOnOrAfter", "tomorrow"), "conditions"),
    (lambda a: a.find(saml("Conditions")).remove(a.find(f"{saml('Conditions')}/{saml('AudienceRestriction')}")),
     "audience"),
    (lambda a: etree.SubElement(etree.SubElement(a.find(saml("Conditions")), saml("AudienceRestriction")),
                                saml("Audience")).__setattr__("text", "https://other-sp.example"), "audience"),
    (lambda a: a.remove(a.find(saml("AuthnStatement"))), "authn_statement"),
    (lambda a: a.find(saml("AuthnStatement")).attrib.pop("AuthnInstant"), "authn_statement"),
    (lambda a: a.find(saml("AuthnStatement")).set("SessionNotOnOrAfter", "2025-06-15T15:00:00Z"), "session_expired"),
])
def test_each_rule_refuses(change: Callable[[etree._Element], object], reason: str) -> None:
    assert refusal(changed(change)) == reason


def test_any_bearer_confirmation_that_holds_is_enough() -> None:
    """An IdP may list a confirmation for another of its endpoints first (Profiles 4.1.4.2: at least one)."""
    def add_first(a: etree._Element) -> None:
        other = etree.Element(saml("SubjectConfirmation"), Method="urn:oasis:names:tc:SAML:2.0:cm:bearer")
        etree.SubElement(other, saml("SubjectConfirmationData"), Recipient="https://other.example/acs",
                         InResponseTo=REQUEST_ID, NotOnOrAfter="2025-06-15T15:20:00Z")
        a.find(NAME_ID).addnext(other)
    assert read(changed(add_first), EXPECTED).name_id == "dana-7f3a"


def test_attribute_values_are_read_whole_and_empty_ones_dropped() -> None:
    element = assertion(attributes={"memberOf": ["staff", "", "finance"]})
    value = element.find(f".//{saml('AttributeValue')}")
    value.text = "st"
    comment = etree.Comment("")
    comment.tail = "aff"
    value.append(comment)
    assert read(element, EXPECTED).attributes == {"memberOf": ("staff", "finance")}
