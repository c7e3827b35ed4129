"""A SAML identity provider's metadata (saml-metadata-2.0-os 2.3, 2.4.3): what an IdP record's `saml` field holds.

`parse` reads the IdP's <EntityDescriptor> into the record's `saml` map:
- `entity_id`: its entityID (the record's issuer, the Issuer of its assertions);
- `sso_url`: its <SingleSignOnService> for the HTTP-Redirect binding (where AuthnRequests go);
- `slo_url`: its <SingleLogoutService> for HTTP-Redirect, "" when it has none;
- `certificates`: the PEM certificates of its <KeyDescriptor>s for signing (`use="signing"`, or no
  `use`: both, 2.4.1.1) -- the only keys an assertion is ever verified with. Their validity dates
  are not checked: the administrator's configuration is the trust, as the Metadata
  Interoperability Profile has it (a key in metadata is trusted because it is there);
- `name_id_format`: the NameID format authgate asks for: persistent when offered, else the first
  non-transient one offered, else "" (unspecified);
- `want_requests_signed`: true when its WantAuthnRequestsSigned says so (absent otherwise): a
  request to it then needs the stack's SAML signing key (authn_request.signing_key).
Refused, with a sentence for the administrator: no signing certificate, no HTTP-Redirect sign-on
service, only transient NameIDs (they name a person once), expired metadata (validUntil), an
aggregate of many entities.
The document is parsed under authgate.federation.saml.safe_xml's rules; metadata_url fetches it.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, NamedTuple

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import Encoding
from lxml import etree

from authgate import clock
from authgate.federation.saml import instants, safe_xml
from authgate.federation.saml.vocabulary import (
    HTTP_REDIRECT,
    PERSISTENT,
    PROTOCOL,
    TRANSIENT,
    ds,
    md,
)

# An IdP's own EntityDescriptor is a few KB (AD FS's, with its WS-Federation roles, about 60 KB).
MAX_BYTES = 256 * 1024
MAX_ENTITY_ID = 500  # the IdP record's key (stores.identity_providers.MAX_ISSUER)
MAX_CERTIFICATES = 10
MIN_RSA_BITS = 2048


class MetadataInvalid(ValueError):
    """The document is not metadata authgate can use; the message says why, for the administrator."""


class IdpSaml(NamedTuple):
    """An IdP record's `saml` field, read."""

    entity_id: str
    sso_url: str
    slo_url: str
    certificates: tuple[str, ...]
    name_id_format: str = ""
    metadata_url: str = ""
    want_requests_signed: bool = False


def of(saml: dict[str, Any] | None) -> IdpSaml:
    """The record's `saml` map as `parse` wrote it; MetadataInvalid when it is missing or lacks a part."""
    if not saml or not saml.get("entity_id") or not saml.get("sso_url") or not saml.get("certificates"):
        raise MetadataInvalid("the identity provider has no SAML metadata (entity id, sign-on URL, certificates)")
    return IdpSaml(str(saml["entity_id"]), str(saml["sso_url"]), str(saml.get("slo_url") or ""),
                   tuple(str(c) for c in saml["certificates"]), str(saml.get("name_id_format") or ""),
                   str(saml.get("metadata_url") or ""), saml.get("want_requests_signed") is True)


def parse(xml: bytes, *, allow_loopback: bool = False, now: int | None = None) -> dict[str, Any]:
    """The `saml` map of an IdP's EntityDescriptor; MetadataInvalid with the reason otherwise.

    `allow_loopback`: the sign-on and logout URLs may be http on a loopback host (the local stack)."""
    try:
        root = safe_xml.parse(xml, max_bytes=MAX_BYTES)
    except safe_xml.XmlRefused as refused:
        raise MetadataInvalid(f"the metadata is not XML authgate reads: {refused}") from None
    entity = _entity(root)
    valid_until = instants.read(entity.get("validUntil"))
    if valid_until is not None and valid_until <= (clock.seconds() if now is None else now):
        raise MetadataInvalid(f"the metadata expired (validUntil {entity.get('validUntil')})")
    entity_id = (entity.get("entityID") or "").strip()
    if not entity_id or len(entity_id) > MAX_ENTITY_ID:
        raise MetadataInvalid(f"the EntityDescriptor needs an entityID of 1 to {MAX_ENTITY_ID} characters")
    idp = _idp_descriptor(entity)
    sso_url = _endpoint(idp, "SingleSignOnService", allow_loopback)
    if not sso_url:
        raise MetadataInvalid("the IDPSSODescriptor has no SingleSignOnService for the HTTP-Redirect binding")
    return {"entity_id": entity_id, "sso_url": sso_url, "slo_url": _endpoint(idp, "SingleLogoutService", allow_loopback),
            "certificates": _signing_certificates(idp), "name_id_format": _name_id_format(idp),
            **({"want_requests_signed": True} if idp.get("WantAuthnRequestsSigned") in ("true", "1") else {})}


def _entity(root: etree._Element) -> etree._Element:
    if root.tag == md("EntitiesDescriptor"):
        raise MetadataInvalid("this is an aggregate of entities (EntitiesDescriptor): give the identity provider's "
                              "own EntityDescriptor")
    if root.tag != md("EntityDescriptor"):
        raise MetadataInvalid(f"the document is not SAML 2.0 metadata (its root is {etree.QName(root).localname!r}, "
                              "not EntityDescriptor)")
    return root


def _idp_descriptor(entity: etree._Element) -> etree._Element:
    for descriptor in entity.findall(md("IDPSSODescriptor")):
        if PROTOCOL in (descriptor.get("protocolSupportEnumeration") or "").split():
            return descriptor
    raise MetadataInvalid("the EntityDescriptor has no IDPSSODescriptor supporting SAML 2.0")


def _endpoint(idp: etree._Element, kind: str, allow_loopback: bool) -> str:
    """The Location of the first `kind` endpoint for HTTP-Redirect, checked; "" when there is none."""
    from authgate.outbound.exchange import BadUrl, target

    for endpoint in idp.findall(md(kind)):
        if endpoint.get("Binding") == HTTP_REDIRECT:
            location = (endpoint.get("Location") or "").strip()
            try:
                target(location, allow_loopback=allow_loopback)
            except BadUrl as bad:
                raise MetadataInvalid(f"the {kind} location {location[:200]!r} is refused: {bad}") from None
            return location
    return ""


def _signing_certificates(idp: etree._Element) -> list[str]:
    pems: list[str] = []
    for descriptor in idp.findall(md("KeyDescriptor")):
        if descriptor.get("use", "signing") != "signing":
            continue
        for element in descriptor.iterfind(f"{ds('KeyInfo')}/{ds('X509Data')}/{ds('X509Certificate')}"):
            pem = _certificate(safe_xml.text(element))
            if pem not in pems:
                pems.append(pem)
    if not pems:
        raise MetadataInvalid("the IDPSSODescriptor has no signing certificate (KeyDescriptor use=\"signing\" with "
                              "an X509Certificate): authgate verifies every assertion with it")
    if len(pems) > MAX_CERTIFICATES:
        raise MetadataInvalid(f"more than {MAX_CERTIFICATES} signing certificates")
    return pems


def _certificate(b64: str) -> str:
    """A signing certificate as PEM, its key RSA of 2048 bits or more, or EC."""
    try:
        cert = x509.load_der_x509_certificate(base64.b64decode("".join(b64.split()), validate=True))
    except (ValueError, binascii.Error):
        raise MetadataInvalid("an X509Certificate is not a base64 DER certificate") from None
    key = cert.public_key()
    if isinstance(key, rsa.RSAPublicKey) and key.key_size < MIN_RSA_BITS:
        raise MetadataInvalid(f"a signing certificate holds an RSA key of {key.key_size} bits (at least {MIN_RSA_BITS})")
    if not isinstance(key, rsa.RSAPublicKey | ec.EllipticCurvePublicKey):
        raise MetadataInvalid("a signing certificate holds neither an RSA nor an EC key")
    return cert.public_bytes(Encoding.PEM).decode("ascii")


def _name_id_format(idp: etree._Element) -> str:
    offered = [safe_xml.text(f) for f in idp.findall(md("NameIDFormat"))]
    if PERSISTENT in offered:
        return PERSISTENT
    usable = [f for f in offered if f and f != TRANSIENT]
    if offered and not usable:
        raise MetadataInvalid("the identity provider offers only transient NameIDs, which name a person for one "
                              "sign-in: release a persistent NameID to authgate")
    return usable[0] if usable else ""
