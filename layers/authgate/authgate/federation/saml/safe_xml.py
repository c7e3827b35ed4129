"""Parsing XML someone else wrote: bounded in size, no DTD, no entity, no network (XXE and entity expansion).

A SAML message or metadata document never needs a document type declaration, so any DOCTYPE is
refused -- before parsing when it is plainly there, and after parsing whatever the encoding hid it
(libxml2 with entities unresolved, DTDs neither loaded nor fetched, no network access at all, its
default limits on depth and size kept: huge_tree off). Nothing is ever fetched while parsing.
Comments and processing instructions are kept, so a caller can refuse them where they could
change what a text node says (SAML NameID comment truncation, CVE-2017-11427 and its kin).
"""

from __future__ import annotations

from lxml import etree


class XmlRefused(ValueError):
    """The bytes are not XML authgate reads; `reason` is a short code, the message says why (for logs)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


def parser() -> etree.XMLParser:
    """The parser every SAML document is read with (signxml re-parses what it canonicalized with it too)."""
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                           huge_tree=False, remove_comments=False, remove_pis=False, collect_ids=False)


def parse(data: bytes, *, max_bytes: int) -> etree._Element:
    """The root element of `data`; XmlRefused when it is larger than `max_bytes`, not well-formed, or declares a DTD."""
    if len(data) > max_bytes:
        raise XmlRefused("too_large", f"{len(data)} bytes, more than {max_bytes}")
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise XmlRefused("doctype", "a document type declaration (DOCTYPE or ENTITY) is never accepted")
    try:
        root = etree.fromstring(data, parser=parser())
    except etree.XMLSyntaxError as exc:
        raise XmlRefused("malformed", f"not well-formed XML: {str(exc)[:200]}") from None
    info = root.getroottree().docinfo
    if info.doctype or info.internalDTD is not None or info.externalDTD is not None:
        raise XmlRefused("doctype", "a document type declaration is never accepted")
    return root


def text(element: etree._Element) -> str:
    """The whole text of `element` and its descendants (comments' and processing instructions' own text
    skipped, the text around them joined), stripped: never only the part before a comment."""
    return "".join(element.itertext()).strip()
