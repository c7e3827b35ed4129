"""`--metadata-url URL | --metadata-file FILE` of `authgate idps create|update --protocol saml`: the IdP record's `saml` map.

The SAML IdP's EntityDescriptor, fetched (authgate.federation.saml.metadata_url: https only,
bounded, never a private address; http on loopback only when the stack allows loopback, as the
local stack does) or read from a file, then read by authgate.federation.saml.metadata.parse. A
fetched document's URL is kept in the map (`metadata_url`) so an update can fetch it again.
Refusals are InvalidInput with the parser's sentence for the administrator (exit 2).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from authgate_cli.admin.arguments import InvalidInput


def saml_metadata(url: str | None, file: str | None) -> dict[str, Any] | None:
    """The `saml` map the flags name (None when neither is given); InvalidInput when it cannot be had."""
    from authgate.federation.saml.metadata import MAX_BYTES, MetadataInvalid, parse
    from authgate.settings import get_settings

    if url is not None and file is not None:
        raise InvalidInput("give --metadata-url or --metadata-file, not both")
    if url is None and file is None:
        return None
    loopback = get_settings().allow_loopback_outbound
    try:
        if url is not None:
            from authgate.federation.saml.metadata_url import fetch

            return {**parse(fetch(url, allow_loopback=loopback), allow_loopback=loopback), "metadata_url": url}
        return parse(_read(str(file), MAX_BYTES), allow_loopback=loopback)
    except MetadataInvalid as invalid:
        flag = f"--metadata-url {url[:200]!r}" if url is not None else f"--metadata-file {file!r}"
        raise InvalidInput(f"{flag}: {invalid}") from None


def _read(file: str, max_bytes: int) -> bytes:
    try:
        with Path(file).open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise InvalidInput(f"--metadata-file {file!r} cannot be read ({exc.strerror})") from None
    if len(data) > max_bytes:
        raise InvalidInput(f"--metadata-file {file!r} is larger than {max_bytes} bytes")
    return data
