"""authgate.administration.saml_metadata: an IdP's metadata from a URL (outbound's rules) or as given."""

from __future__ import annotations

import pytest

from authgate.administration import saml_metadata
from authgate.operators.input import InvalidInput


def test_a_document_given_is_parsed_with_the_parser_s_rules() -> None:
    from tests.saml_support import IDP_ENTITY_ID, metadata

    assert saml_metadata.given(metadata(), "the metadata XML")["entity_id"] == IDP_ENTITY_ID
    with pytest.raises(InvalidInput, match="^the metadata XML: "):
        saml_metadata.given(b'<!DOCTYPE x [<!ENTITY e "boom">]><x>&e;</x>', "the metadata XML")
    with pytest.raises(InvalidInput, match="^the metadata XML is larger than 262144 bytes$"):
        saml_metadata.given(b"<" * (256 * 1024 + 1), "the metadata XML")


@pytest.mark.parametrize("url", ["http://idp.example/md", "https://10.0.0.1/md", "https://127.0.0.1/md"])
def test_a_url_is_fetched_under_the_outbound_rules(url: str) -> None:
    with pytest.raises(InvalidInput, match=f"^--metadata-url '{url}': "):
        saml_metadata.fetched(url)


def test_one_source_at_a_time() -> None:
    saml_metadata.one_source("https://idp.example/md", False)
    saml_metadata.one_source(None, True)
    with pytest.raises(InvalidInput, match="^give --metadata-url or --metadata-file, not both$"):
        saml_metadata.one_source("https://idp.example/md", True)
