"""`--metadata-url URL | --metadata-file FILE` of `authgate idps create|update --protocol saml`: the IdP record's `saml` map.

The file is read here (bounded); fetching the URL and reading the document are the console's too
(authgate.administration.saml_metadata). Refusals are InvalidInput with the parser's sentence for the
administrator (exit 2).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from authgate_cli.admin.arguments import InvalidInput


def saml_metadata(url: str | None, file: str | None) -> dict[str, Any] | None:
    """The `saml` map the flags name (None when neither is given); InvalidInput when it cannot be had."""
    from authgate.administration.saml_metadata import fetched, given, one_source
    from authgate.federation.saml.metadata import MAX_BYTES

    one_source(url, file is not None)
    if url is not None:
        return fetched(url)
    if file is None:
        return None
    return given(_read(file, MAX_BYTES), f"--metadata-file {file!r}")


def _read(file: str, max_bytes: int) -> bytes:
    """At most one byte more than `max_bytes` (which the reader refuses as too large)."""
    try:
        with Path(file).open("rb") as handle:
            return handle.read(max_bytes + 1)
    except OSError as exc:
        raise InvalidInput(f"--metadata-file {file!r} cannot be read ({exc.strerror})") from None
