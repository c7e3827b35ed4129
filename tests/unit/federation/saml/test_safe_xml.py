"""safe_xml: no DTD, no entity (nothing a document names is ever read), bounded size; text read whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from authgate.federation.saml.safe_xml import XmlRefused, parse, parser, text


def refused(data: bytes, max_bytes: int = 10_000) -> XmlRefused:
    with pytest.raises(XmlRefused) as caught:
        parse(data, max_bytes=max_bytes)
    return caught.value


def external_entity(secret: Path, encoding: str = "utf-8") -> bytes:
    return (f'<?xml version="1.0" encoding="{encoding.upper()}"?>'
            f'<!DOCTYPE a [<!ENTITY x SYSTEM "{secret.as_uri()}">]><a>&x;</a>').encode(encoding)


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_text("TOP-SECRET")
    return path


def test_plain_xml_is_parsed() -> None:
    root = parse(b'<?xml version="1.0" encoding="UTF-8"?><a x="1"><b>t</b></a>', max_bytes=100)
    assert (root.tag, root.get("x"), root[0].text) == ("a", "1", "t")


def test_an_external_entity_is_refused_before_parsing(secret: Path) -> None:
    error = refused(external_entity(secret))
    assert (error.reason, str(error)) == ("doctype", "a document type declaration (DOCTYPE or ENTITY) is never accepted")


def test_an_external_entity_hidden_by_utf16_is_refused_unread(secret: Path) -> None:
    """The byte check cannot see UTF-16; the parser leaves the entity unexpanded (a permissive one reads the
    file), and the declaration refuses the document."""
    xml = external_entity(secret, "utf-16")
    assert b"TOP-SECRET" in etree.tostring(etree.fromstring(xml, parser=etree.XMLParser(resolve_entities=True)))
    assert etree.tostring(etree.fromstring(xml, parser=parser())) == b"<a>&x;</a>"
    error = refused(xml)
    assert (error.reason, str(error)) == ("doctype", "a document type declaration is never accepted")


def test_an_entity_expansion_bomb_is_refused() -> None:
    lol = '<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">' + "".join(
        f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(8)) + "]><l>&i;</l>"
    assert refused(lol.encode()).reason == "doctype"


def test_more_than_the_bound_is_refused_before_parsing() -> None:
    error = refused(b"<a>" + b"x" * 100 + b"</a>", max_bytes=50)
    assert (error.reason, str(error)) == ("too_large", "107 bytes, more than 50")


def test_malformed_xml_is_refused() -> None:
    assert refused(b"<a><b></a>").reason == "malformed"


def test_text_joins_the_parts_around_a_comment_and_a_processing_instruction() -> None:
    element = etree.fromstring(b"<n>user@evil.com<!---->.example<?pi x?>!</n>")
    assert (element.text, text(element)) == ("user@evil.com", "user@evil.com.example!")
