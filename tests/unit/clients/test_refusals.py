"""clients.errors: a metadata document the lookup cannot use, as failures.ERRORS receives it."""

from __future__ import annotations

from authgate.clients.errors import MetadataRefused


def test_a_refusal_carries_its_code_what_may_be_shown_and_what_only_logs_see() -> None:
    refused = MetadataRefused("client_metadata_too_large", "The document is too large.", internal="6000 bytes")
    assert (refused.code, refused.detail, refused.internal, refused.retry_after) == (
        "client_metadata_too_large", "The document is too large.", "6000 bytes", 0)
    assert str(refused) == "client_metadata_too_large: The document is too large."
    assert MetadataRefused("client_metadata_rate_limited", "Too many.", retry_after=7).retry_after == 7
