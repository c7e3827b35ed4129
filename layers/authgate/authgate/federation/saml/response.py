"""The IdP's answer by HTTP-POST (Bindings 3.5) at authgate's Assertion Consumer Service, checked in security order.

1. `document`: SAMLResponse base64-decoded within a size bound and parsed under safe_xml's rules
   (any DOCTYPE refused: no entity is ever expanded, nothing fetched).
2. `check_envelope`: a <samlp:Response> of version 2.0 answering the AuthnRequest sent
   (InResponseTo: no unsolicited, IdP-initiated response is taken), delivered where it was sent
   (Destination, required when the Response is signed: Bindings 3.5.5.2), from the IdP (Issuer,
   when present: Profiles 4.1.4.2), with status Success; a Response that is signed must verify.
   These values only refuse: none of them identifies anyone.
3. `the_assertion`: exactly one <saml:Assertion> in the whole document, a child of the Response,
   no <EncryptedAssertion> (not supported), and no comment or processing instruction inside it
   (the NameID comment-truncation class). A second assertion anywhere -- before or after the
   signed one, or the signed one moved into Extensions or an Object -- is refused here, whatever
   the signature says: the classic signature-wrapping shapes never reach verification.
4. The assertion's own signature verified with the IdP record's certificates only, and its values
   read from the tree that signature covers (signature.verified, assertion.read). The assertion
   must be signed even inside a signed Response (authgate's metadata says WantAssertionsSigned).
5. Its ID spent once (ReplayTable, one conditional PutItem, kept until its NotOnOrAfter plus
   the leeway: Profiles 4.1.4.5).
The result is the UpstreamIdentity every protocol returns; any failure is UpstreamRefused.
"""

from __future__ import annotations

import base64
import binascii
import zlib

from lxml import etree

from authgate import clock
from authgate.federation.errors import UpstreamRefused
from authgate.federation.saml import assertion, metadata, safe_xml, signature
from authgate.federation.saml.vocabulary import SUCCESS, VERSION, saml, samlp
from authgate.federation.upstream import UpstreamIdentity
from authgate.identity_providers.model import IdentityProvider
from authgate.settings import get_settings
from authgate.single_use.errors import Replayed
from authgate.stores.replay import ReplayGuard, saml_assertion_key

# A response with a signed assertion and some attributes is 5-20 KB; many groups make it larger.
MAX_BYTES = 256 * 1024


def finish(idp: IdentityProvider, *, saml_response_b64: str, acs_url: str, sp_entity_id: str,
           expected_request_id: str, replay: ReplayGuard | None = None, now: int | None = None) -> UpstreamIdentity:
    """Who the IdP says signed in, once every rule of this module holds; UpstreamRefused otherwise."""
    try:
        settings = metadata.of(idp.saml)
    except metadata.MetadataInvalid as invalid:
        raise UpstreamRefused("idp_not_saml", str(invalid)) from None
    expected = assertion.Expected(settings.entity_id, sp_entity_id, acs_url, expected_request_id,
                                  clock.seconds() if now is None else now, get_settings().leeway)
    root = document(saml_response_b64)
    check_envelope(root, settings, expected)
    signed = _verified(the_assertion(root), settings)
    said = assertion.read(signed, expected)
    try:
        (replay or ReplayGuard()).use(saml_assertion_key(settings.entity_id, said.id),
                                      said.expires_at + expected.leeway, now=expected.now)
    except Replayed:
        raise UpstreamRefused("replayed", "this assertion was already used") from None
    return UpstreamIdentity(
        tenant_id=idp.tenant_id, issuer=settings.entity_id, subject=f"{said.name_id_format}|{said.name_id}",
        email=_first(idp, "email", said), name=_first(idp, "name", said), groups=_all(idp, "groups", said),
        acr=said.class_ref, auth_time=said.authn_instant, session_id=said.session_index)


def document(saml_response_b64: str, *, deflated: bool = False, max_bytes: int = MAX_BYTES) -> etree._Element:
    """The decoded, parsed message (its root element); UpstreamRefused when it is too large or not XML.

    `deflated`: the HTTP-Redirect binding's DEFLATE (Bindings 3.4.4.1), inflated within `max_bytes` too."""
    max_base64 = (max_bytes + 2) // 3 * 4
    if len(saml_response_b64) > 2 * max_base64:  # before any work on it: even line breaks cannot double it
        raise UpstreamRefused("too_large", f"SAMLResponse of {len(saml_response_b64)} characters")
    compact = "".join(saml_response_b64.split())  # some IdPs wrap the base64 at 64 or 76 characters
    if len(compact) > max_base64:
        raise UpstreamRefused("too_large", f"SAMLResponse of {len(compact)} base64 characters")
    try:
        raw = base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        raise UpstreamRefused("not_base64", "SAMLResponse is not base64") from None
    if deflated:
        raw = _inflated(raw, max_bytes)
    try:
        return safe_xml.parse(raw, max_bytes=max_bytes)
    except safe_xml.XmlRefused as refused:
        raise UpstreamRefused(refused.reason, str(refused)) from None


def _inflated(data: bytes, max_bytes: int) -> bytes:
    inflater = zlib.decompressobj(-15)
    try:
        raw = inflater.decompress(data, max_bytes + 1)
    except zlib.error:
        raise UpstreamRefused("not_deflated", "the message is not DEFLATE-compressed (Bindings 3.4.4.1)") from None
    if len(raw) > max_bytes or inflater.unconsumed_tail:
        raise UpstreamRefused("too_large", f"the message inflates to more than {max_bytes} bytes")
    return raw


def check_envelope(root: etree._Element, settings: metadata.IdpSaml, expected: assertion.Expected) -> None:
    """The Response's own rules (step 2 above); UpstreamRefused naming the first that fails."""
    if root.tag != samlp("Response"):
        raise UpstreamRefused("not_a_response", f"the message is a {etree.QName(root).localname}, not a Response")
    if root.get("Version") != VERSION:
        raise UpstreamRefused("version", f"Response Version {root.get('Version')!r}")
    if root.get("InResponseTo") != expected.request_id:
        raise UpstreamRefused("in_response_to", "the Response does not answer the AuthnRequest sent"
                              if root.get("InResponseTo") else "an unsolicited Response (no InResponseTo)")
    signed = signature.is_signed(root)
    destination = root.get("Destination")
    if destination != expected.acs_url and (destination is not None or signed):
        raise UpstreamRefused("destination", "the Response's Destination is not authgate's ACS URL")
    issuers = root.findall(saml("Issuer"))
    if len(issuers) > 1 or (issuers and safe_xml.text(issuers[0]) != settings.entity_id):
        raise UpstreamRefused("issuer", "the Response's Issuer is not the IdP's entity ID")
    check_status(root)
    if signed:
        _verified(root, settings)


def check_status(root: etree._Element) -> None:
    """A protocol response's top-level status is Success (Core 3.2.2.2); UpstreamRefused naming what it is otherwise."""
    status = root.find(f"{samlp('Status')}/{samlp('StatusCode')}")
    if status is None or status.get("Value") != SUCCESS:
        codes = [] if status is None else [c.get("Value", "") for c in status.iter(samlp("StatusCode"))]
        raise UpstreamRefused("status", f"the IdP answered {' / '.join(c.rsplit(':', 1)[-1] for c in codes) or 'no status'}")


def the_assertion(root: etree._Element) -> etree._Element:
    """The Response's one assertion (step 3 above); UpstreamRefused otherwise."""
    if any(True for _ in root.iter(saml("EncryptedAssertion"))):
        raise UpstreamRefused("encrypted_assertion", "encrypted assertions are not supported")
    found = list(root.iter(saml("Assertion")))
    if len(found) != 1 or found[0].getparent() is not root:
        raise UpstreamRefused("assertion_count", f"{len(found)} assertions, or one not directly in the Response")
    if found[0].xpath(".//comment() | .//processing-instruction()"):
        raise UpstreamRefused("xml_comment", "a comment or processing instruction inside the assertion")
    return found[0]


def _verified(element: etree._Element, settings: metadata.IdpSaml) -> etree._Element:
    try:
        return signature.verified(element, settings.certificates, safe_xml.parser())
    except signature.SignatureInvalid as invalid:
        raise UpstreamRefused(invalid.reason, invalid.internal) from None


def _first(idp: IdentityProvider, field: str, said: assertion.Assertion) -> str:
    """The first value of the first attribute mapped to `field` that the assertion carries ("" if none)."""
    return next((said.attributes[name][0] for name in idp.claim_names(field) if said.attributes.get(name)), "")


def _all(idp: IdentityProvider, field: str, said: assertion.Assertion) -> tuple[str, ...]:
    """Every value of the first attribute mapped to `field` that the assertion carries."""
    return next((said.attributes[name] for name in idp.claim_names(field) if said.attributes.get(name)), ())
