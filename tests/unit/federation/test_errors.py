"""federation.errors: an upstream refusal keeps its log detail apart from its reason."""

from __future__ import annotations

import pytest

from authgate.federation.errors import LinkRequired, ProvisioningRefused, UpstreamRefused


def test_an_upstream_refusal_says_its_reason_and_keeps_the_detail_for_logs_only() -> None:
    refusal = UpstreamRefused("nonce_mismatch", internal="nonce of another request")

    assert (refusal.reason, refusal.internal, str(refusal)) == (
        "nonce_mismatch", "nonce of another request", "nonce_mismatch")


def test_an_upstream_refusal_needs_no_detail() -> None:
    assert UpstreamRefused("expired").internal == ""


@pytest.mark.parametrize("refusal", [LinkRequired, ProvisioningRefused])
def test_a_linking_refusal_is_not_an_upstream_refusal(refusal: type[Exception]) -> None:
    # The interaction answers them differently: a proof to ask for, or a page to ask the administrator.
    assert not issubclass(refusal, UpstreamRefused)
