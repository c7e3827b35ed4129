"""A SAML IdP's metadata as an operator gives it: a URL to fetch, or the document itself; the record's `saml` map.

The EntityDescriptor is fetched (federation.saml.metadata_url: authgate.outbound's rules, https only, bounded, never a
private address; http on loopback only when the stack allows loopback, as the local stack does) or taken as given
(a file `authgate idps` read, the XML pasted in the console, at most metadata.MAX_BYTES), then read by
federation.saml.metadata.parse under the same hostile-input rules either way. A fetched document's URL is kept in
the map (`metadata_url`) so that an update can fetch it again. A refusal is InvalidInput with the parser's sentence.
"""

from __future__ import annotations

from typing import Any

from authgate.operators.input import InvalidInput

BOTH = "give --metadata-url or --metadata-file, not both"


def one_source(url: str | None, document_given: bool) -> None:
    """InvalidInput when both a URL and a document are given."""
    if url is not None and document_given:
        raise InvalidInput(BOTH)


def fetched(url: str) -> dict[str, Any]:
    """The `saml` map of the metadata at `url`, fetched now."""
    from authgate.federation.saml.metadata import MetadataInvalid, parse
    from authgate.federation.saml.metadata_url import fetch
    from authgate.settings import get_settings

    loopback = get_settings().allow_loopback_outbound
    try:
        return {**parse(fetch(url, allow_loopback=loopback), allow_loopback=loopback), "metadata_url": url}
    except MetadataInvalid as invalid:
        raise InvalidInput(f"--metadata-url {url[:200]!r}: {invalid}") from None


def given(document: bytes, source: str) -> dict[str, Any]:
    """The `saml` map of `document` (from `source`: the file's flag and path, or the console's field)."""
    from authgate.federation.saml.metadata import MAX_BYTES, MetadataInvalid, parse
    from authgate.settings import get_settings

    if len(document) > MAX_BYTES:
        raise InvalidInput(f"{source} is larger than {MAX_BYTES} bytes")
    try:
        return parse(document, allow_loopback=get_settings().allow_loopback_outbound)
    except MetadataInvalid as invalid:
        raise InvalidInput(f"{source}: {invalid}") from None
