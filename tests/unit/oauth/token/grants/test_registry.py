"""The grant registry: every entry names the class of that grant type, loaded on first use."""

from __future__ import annotations

import pytest

from authgate.errors import ApiError
from authgate.oauth.token.grants import GRANTS, grant_class, grant_for


@pytest.mark.parametrize("grant_type", sorted(GRANTS))
def test_each_entry_loads_the_class_of_its_grant_type(grant_type: str) -> None:
    assert grant_class(grant_type).GRANT_TYPE == grant_type


def test_an_unknown_grant_type_is_unsupported_grant_type() -> None:
    with pytest.raises(ApiError) as raised:
        grant_for("urn:example:unknown")
    assert (raised.value.code, raised.value.status) == ("unsupported_grant_type", 400)
