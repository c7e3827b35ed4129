"""authgate's service provider metadata for one tenant (saml-metadata-2.0-os 2.3.2, 2.4.4): what an IdP imports.

An <EntityDescriptor> whose entityID is the tenant's SP entity ID (`<issuer>/saml/<tenant>`) with
one <SPSSODescriptor>: AuthnRequestsSigned, "true" when the stack has a SAML signing key (sp_keys:
every request is then signed) and "false" otherwise, WantAssertionsSigned="true" (an unsigned
assertion is refused even in a signed Response), a <KeyDescriptor use="signing"> for each of the
stack's signing certificates (the one that signs first; a second while a rotation is under way),
the NameID formats it takes (persistent first; never transient), its Assertion Consumer Service
for HTTP-POST and, when given, its Single Logout Service for HTTP-Redirect. No encryption key:
authgate takes no encrypted assertions.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from lxml import etree

from authgate.clients.model import MAX_CLIENT_ID_LENGTH
from authgate.federation.saml.vocabulary import (
    DSIG,
    EMAIL_ADDRESS,
    HTTP_POST,
    HTTP_REDIRECT,
    METADATA,
    PERSISTENT,
    PROTOCOL,
    UNSPECIFIED,
    ds,
    md,
)

NAME_ID_FORMATS = (PERSISTENT, EMAIL_ADDRESS, UNSPECIFIED)
MEDIA_TYPE = "application/samlmetadata+xml"
# A tenant id as the admin commands take one: printable ASCII without spaces, as long as a client id at most.
_TENANT = re.compile(rf"[\x21-\x7e]{{1,{MAX_CLIENT_ID_LENGTH}}}")


def tenant_path(tenant_id: str) -> bool:
    """Whether `tenant_id`, from a `/saml/{tenant}/...` path, is one a tenant could have (nothing is read)."""
    return bool(_TENANT.fullmatch(tenant_id))


def sp_entity_id(issuer: str, tenant_id: str) -> str:
    """The tenant's SP entity ID, `<issuer>/saml/<tenant>` (the tenant percent-encoded): stable while the issuer is."""
    return f"{issuer.rstrip('/')}/saml/{quote(tenant_id, safe='')}"


def acs_url(issuer: str, tenant_id: str) -> str:
    """Where the tenant's IdPs POST their responses (Bindings 3.5): `<SP entity ID>/acs`."""
    return f"{sp_entity_id(issuer, tenant_id)}/acs"


def slo_url(issuer: str, tenant_id: str) -> str:
    """Where the tenant's IdPs send the answer to authgate's LogoutRequest (Bindings 3.4): `<SP entity ID>/slo`."""
    return f"{sp_entity_id(issuer, tenant_id)}/slo"


def sp_metadata(sp_entity_id: str, acs_url: str, slo_url: str | None = None,
                certificates: tuple[str, ...] = ()) -> bytes:
    """The SP metadata document of one tenant (UTF-8, with an XML declaration); `certificates` (PEM): the stack's
    signing certificates, none when it signs nothing."""
    root = etree.Element(md("EntityDescriptor"), nsmap={"md": METADATA}, entityID=sp_entity_id)
    sp = etree.SubElement(root, md("SPSSODescriptor"), AuthnRequestsSigned="true" if certificates else "false",
                          WantAssertionsSigned="true", protocolSupportEnumeration=PROTOCOL)
    for certificate in certificates:  # Metadata 2.4.1: KeyDescriptors come first in a role descriptor
        key = etree.SubElement(sp, md("KeyDescriptor"), use="signing")
        data = etree.SubElement(etree.SubElement(key, ds("KeyInfo"), nsmap={"ds": DSIG}), ds("X509Data"))
        etree.SubElement(data, ds("X509Certificate")).text = "".join(
            line for line in certificate.strip().splitlines() if not line.startswith("-----"))
    if slo_url:
        etree.SubElement(sp, md("SingleLogoutService"), Binding=HTTP_REDIRECT, Location=slo_url)
    for name_format in NAME_ID_FORMATS:
        etree.SubElement(sp, md("NameIDFormat")).text = name_format
    etree.SubElement(sp, md("AssertionConsumerService"), Binding=HTTP_POST, Location=acs_url, index="0",
                     isDefault="true")
    return bytes(etree.tostring(root, encoding="utf-8", xml_declaration=True, pretty_print=True))
