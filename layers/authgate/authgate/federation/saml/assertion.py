"""What a verified SAML assertion says, and whether it holds for this sign-in (Core 2.3-2.7; Profiles 4.1.4.2-4.1.4.3).

Read only from the tree the assertion's signature covers (authgate.federation.saml.signature):
- Issuer: the IdP's entity ID (Core 2.3.3: required in an assertion).
- Subject: a plain <NameID> (an <EncryptedID> or <BaseID> is refused), not transient -- a
  transient NameID names the person for this sign-in only, so no account could ever be found by
  it again (the IdP must release a persistent one, or another lasting format); its
  NameQualifier and SPNameQualifier, when present, name the IdP and authgate (Core 8.3.7).
- A bearer <SubjectConfirmation> whose data has Recipient = authgate's ACS URL, InResponseTo =
  the AuthnRequest's ID, a NotOnOrAfter not passed, and no NotBefore (Profiles 4.1.4.2).
- <Conditions>: NotBefore and NotOnOrAfter hold with the stack's leeway, and every
  <AudienceRestriction> (at least one: Profiles 4.1.4.2) lists authgate's SP entity ID (Core 2.5.1.4).
- An <AuthnStatement> (Profiles 4.1.4.2): AuthnInstant, SessionIndex, AuthnContextClassRef, and a
  SessionNotOnOrAfter not passed.
- <AttributeStatement>s: every attribute's values by Name (text read whole: safe_xml.text).
Each refusal is an UpstreamRefused with a short reason code.
"""

from __future__ import annotations

from typing import NamedTuple

from lxml import etree

from authgate.federation.errors import UpstreamRefused
from authgate.federation.saml import instants, safe_xml
from authgate.federation.saml.vocabulary import BEARER, TRANSIENT, UNSPECIFIED, VERSION, saml

# Core 8.3.7: a persistent identifier is at most 256 characters; no format authgate accepts needs more.
MAX_NAME_ID = 256


class Assertion(NamedTuple):
    """The values of a verified assertion that held."""

    id: str
    name_id: str
    name_id_format: str
    authn_instant: int
    session_index: str
    class_ref: str
    attributes: dict[str, tuple[str, ...]]
    # The last moment it may be used (the earliest NotOnOrAfter it carries): its replay window.
    expires_at: int


class Expected(NamedTuple):
    """What this sign-in expects of the assertion."""

    entity_id: str
    sp_entity_id: str
    acs_url: str
    request_id: str
    now: int
    leeway: int


def read(signed: etree._Element, expected: Expected) -> Assertion:
    """The verified assertion's values, once every rule above holds; UpstreamRefused naming the first that fails."""
    if signed.get("Version") != VERSION:
        raise UpstreamRefused("version", f"assertion Version {signed.get('Version')!r}")
    issuer = _only(signed, saml("Issuer"), "issuer")
    if safe_xml.text(issuer) != expected.entity_id:
        raise UpstreamRefused("issuer", "the assertion's Issuer is not the IdP's entity ID")
    subject = _only(signed, saml("Subject"), "subject")
    name_id, name_format = _name_id(subject, expected)
    confirmed_until = _confirmed(subject, expected)
    conditions_until = _conditions(_only(signed, saml("Conditions"), "conditions"), expected)
    authn = signed.find(saml("AuthnStatement"))
    if authn is None:
        raise UpstreamRefused("authn_statement", "the assertion has no AuthnStatement")
    authn_instant = instants.read(authn.get("AuthnInstant"))
    if authn_instant is None:
        raise UpstreamRefused("authn_statement", "the AuthnStatement has no valid AuthnInstant")
    session_end = instants.read(authn.get("SessionNotOnOrAfter"))
    if session_end is not None and expected.now >= session_end + expected.leeway:
        raise UpstreamRefused("session_expired", "the IdP's session ended (SessionNotOnOrAfter)")
    class_ref = authn.find(f"{saml('AuthnContext')}/{saml('AuthnContextClassRef')}")
    return Assertion(
        id=signed.get("ID") or "", name_id=name_id, name_id_format=name_format, authn_instant=authn_instant,
        session_index=authn.get("SessionIndex") or "",
        class_ref=safe_xml.text(class_ref) if class_ref is not None else "",
        attributes=_attributes(signed),
        expires_at=min(t for t in (confirmed_until, conditions_until) if t is not None))


def _only(parent: etree._Element, tag: str, reason: str) -> etree._Element:
    found = parent.findall(tag)
    if len(found) != 1:
        raise UpstreamRefused(reason, f"{len(found)} {etree.QName(tag).localname} elements, not one")
    return found[0]


def _name_id(subject: etree._Element, expected: Expected) -> tuple[str, str]:
    if subject.find(saml("EncryptedID")) is not None or subject.find(saml("BaseID")) is not None:
        raise UpstreamRefused("name_id", "the Subject's identifier is encrypted or a BaseID: only NameID is read")
    name_id = _only(subject, saml("NameID"), "name_id")
    name_format = name_id.get("Format") or UNSPECIFIED
    if name_format == TRANSIENT:
        raise UpstreamRefused("transient_name_id", "a transient NameID cannot identify a person twice")
    if name_id.get("NameQualifier") not in (None, expected.entity_id) or name_id.get("SPNameQualifier") not in (
            None, expected.sp_entity_id):
        raise UpstreamRefused("name_id", "the NameID is qualified for another IdP or service provider")
    value = safe_xml.text(name_id)
    if len(name_id) or not value or len(value) > MAX_NAME_ID or not value.isprintable():
        raise UpstreamRefused("name_id", f"the NameID is empty, has elements, holds control characters or is over "
                                         f"{MAX_NAME_ID} characters")
    return value, name_format


def _confirmed(subject: etree._Element, expected: Expected) -> int:
    """The NotOnOrAfter of the first bearer confirmation that holds; UpstreamRefused with why the first one fails."""
    failures: list[UpstreamRefused] = []
    for confirmation in subject.findall(saml("SubjectConfirmation")):
        if confirmation.get("Method") != BEARER:
            continue
        data = confirmation.find(saml("SubjectConfirmationData"))
        try:
            return _bearer(data, expected)
        except UpstreamRefused as refused:
            failures.append(refused)
    raise failures[0] if failures else UpstreamRefused("subject_confirmation", "no bearer SubjectConfirmation")


def _bearer(data: etree._Element | None, expected: Expected) -> int:
    if data is None:
        raise UpstreamRefused("subject_confirmation", "a bearer SubjectConfirmation without SubjectConfirmationData")
    if data.get("Recipient") != expected.acs_url:
        raise UpstreamRefused("recipient", "the bearer confirmation's Recipient is not authgate's ACS URL")
    if data.get("InResponseTo") != expected.request_id:
        raise UpstreamRefused("in_response_to", "the bearer confirmation answers another AuthnRequest")
    if data.get("NotBefore") is not None:
        raise UpstreamRefused("subject_confirmation", "a bearer confirmation with NotBefore (Profiles 4.1.4.2)")
    not_on_or_after = instants.read(data.get("NotOnOrAfter"))
    if not_on_or_after is None:
        raise UpstreamRefused("subject_confirmation", "the bearer confirmation has no valid NotOnOrAfter")
    if expected.now >= not_on_or_after + expected.leeway:
        raise UpstreamRefused("expired", "the bearer confirmation's NotOnOrAfter has passed")
    return not_on_or_after


def _conditions(conditions: etree._Element, expected: Expected) -> int | None:
    """The Conditions' NotOnOrAfter (None when absent), once they hold."""
    not_before = instants.read(conditions.get("NotBefore"))
    not_on_or_after = instants.read(conditions.get("NotOnOrAfter"))
    for name in ("NotBefore", "NotOnOrAfter"):
        if conditions.get(name) is not None and instants.read(conditions.get(name)) is None:
            raise UpstreamRefused("conditions", f"the Conditions' {name} is not a time instant")
    if not_before is not None and expected.now + expected.leeway < not_before:
        raise UpstreamRefused("not_yet_valid", "the assertion's NotBefore is still to come")
    if not_on_or_after is not None and expected.now >= not_on_or_after + expected.leeway:
        raise UpstreamRefused("expired", "the assertion's NotOnOrAfter has passed")
    restrictions = conditions.findall(saml("AudienceRestriction"))
    if not restrictions:
        raise UpstreamRefused("audience", "the assertion has no AudienceRestriction")
    for restriction in restrictions:
        if expected.sp_entity_id not in (safe_xml.text(a) for a in restriction.findall(saml("Audience"))):
            raise UpstreamRefused("audience", "an AudienceRestriction does not name authgate's SP entity ID")
    return not_on_or_after


def _attributes(signed: etree._Element) -> dict[str, tuple[str, ...]]:
    attributes: dict[str, tuple[str, ...]] = {}
    for attribute in signed.iterfind(f"{saml('AttributeStatement')}/{saml('Attribute')}"):
        name = attribute.get("Name") or ""
        values = tuple(value for value in (safe_xml.text(v) for v in attribute.findall(saml("AttributeValue")))
                       if value)
        if name:
            attributes[name] = attributes.get(name, ()) + values
    return attributes
