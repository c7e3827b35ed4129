"""The SAML 2.0 names authgate reads and writes: namespaces, bindings, NameID formats, status codes.

SAML Core (saml-core-2.0-os) 2.2.2 and 8.3 (NameID formats), 3.2.2.2 (status codes); Bindings
(saml-bindings-2.0-os) 3.4 and 3.5; Metadata (saml-metadata-2.0-os) 2.
"""

from __future__ import annotations

PROTOCOL = "urn:oasis:names:tc:SAML:2.0:protocol"
ASSERTION = "urn:oasis:names:tc:SAML:2.0:assertion"
METADATA = "urn:oasis:names:tc:SAML:2.0:metadata"
DSIG = "http://www.w3.org/2000/09/xmldsig#"

HTTP_REDIRECT = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"
HTTP_POST = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"

PERSISTENT = "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent"
TRANSIENT = "urn:oasis:names:tc:SAML:2.0:nameid-format:transient"
EMAIL_ADDRESS = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"
UNSPECIFIED = "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified"

SUCCESS = "urn:oasis:names:tc:SAML:2.0:status:Success"
BEARER = "urn:oasis:names:tc:SAML:2.0:cm:bearer"
VERSION = "2.0"


def samlp(tag: str) -> str:
    """The Clark name of a protocol element (`{urn:...:protocol}Response`)."""
    return f"{{{PROTOCOL}}}{tag}"


def saml(tag: str) -> str:
    """The Clark name of an assertion element."""
    return f"{{{ASSERTION}}}{tag}"


def md(tag: str) -> str:
    """The Clark name of a metadata element."""
    return f"{{{METADATA}}}{tag}"


def ds(tag: str) -> str:
    """The Clark name of an XML Signature element."""
    return f"{{{DSIG}}}{tag}"
