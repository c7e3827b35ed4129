"""oauth.resource_indicator (RFC 8707 2): the one resource this server issues tokens for, or invalid_target."""

from __future__ import annotations

import pytest

from authgate.errors import ApiError
from authgate.oauth.resource_indicator import requested_resource

ISSUER = "https://auth.example.com"
CHARGES = ISSUER + "/charges"


def test_the_charges_resource_or_none() -> None:
    assert requested_resource([CHARGES], ISSUER) == CHARGES
    assert requested_resource([CHARGES + "/"], ISSUER) == CHARGES
    assert requested_resource([], ISSUER) is None
    assert requested_resource([""], ISSUER) is None


@pytest.mark.parametrize(("values", "detail"), [
    ([CHARGES, CHARGES], f"Name one resource per request; this server protects only {CHARGES}."),
    (["/charges"], "The resource parameter must be an absolute URI without a fragment (RFC 8707 2)."),
    ([CHARGES + "#x"], "The resource parameter must be an absolute URI without a fragment (RFC 8707 2)."),
    (["http://[::1"], "The resource parameter must be an absolute URI without a fragment (RFC 8707 2)."),
    (["https://other.example/api"], f"The resource https://other.example/api is unknown; this server protects only {CHARGES}."),
])
def test_anything_else_is_invalid_target(values: list[str], detail: str) -> None:
    with pytest.raises(ApiError) as info:
        requested_resource(values, ISSUER)
    assert (info.value.code, info.value.status, info.value.detail) == ("invalid_target", 400, detail)
