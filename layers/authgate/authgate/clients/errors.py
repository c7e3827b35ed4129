"""A client's refusals: an id taken, a client that is not there, a Client ID Metadata Document
refused (draft-ietf-oauth-client-id-metadata-document-02 5.1, 8.6, 8.7).

`failures.ERRORS` makes MetadataRefused the ApiError of its precise code (errors/catalogue.json),
OAuth error invalid_client, or temporarily_unavailable with Retry-After when a fetch budget is
spent. The authorization endpoint looks its client up before it trusts a redirect URI (the URI
comes from the document), so the refusal is a page, never a redirect (RFC 6749 4.1.2.1); the
token and PAR endpoints answer invalid_client with 401 and the Basic challenge (RFC 6749 5.2).

Every domain package keeps its refusals in its errors.py, apart from its records (docs/architecture.md,
"Stores").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from authgate.errors.codes import Code


class ClientExists(Exception):
    """A client with this id is already registered (a new client never replaces one)."""


class ClientNotFound(LookupError):
    """No client with this id, or not the record that was read (rotation, update, deletion target)."""


class MetadataRefused(Exception):
    """A Client ID Metadata Document could not be used; `detail` is safe to show, `internal` is for logs,
    `retry_after` (seconds) is set when authgate's own fetch budget refused the fetch."""

    def __init__(self, code: Code, detail: str, internal: str = "", retry_after: int = 0) -> None:
        super().__init__(f"{code}: {detail}")
        self.code: Code = code
        self.detail = detail
        self.internal = internal
        self.retry_after = retry_after
