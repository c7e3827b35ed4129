"""The grant registry: every entry names the class of that grant type, loaded on first use."""

from __future__ import annotations

import pytest

from authgate import grant_types
from authgate.errors import ApiError
from authgate.oauth.token.grants import GRANTS, grant_class, grant_for


def test_the_registry_serves_exactly_the_stacks_grant_types() -> None:
    """One list (authgate.grant_types): discovery, registration and the admin CLI read it, the registry serves it."""
    assert tuple(GRANTS) == grant_types.GRANT_TYPES


@pytest.mark.parametrize("grant_type", sorted(GRANTS))
def test_each_entry_loads_the_class_of_its_grant_type(grant_type: str) -> None:
    assert grant_class(grant_type).GRANT_TYPE == grant_type


def test_an_unknown_grant_type_is_unsupported_grant_type() -> None:
    with pytest.raises(ApiError) as raised:
        grant_for("urn:example:unknown")
    assert (raised.value.code, raised.value.status) == ("unsupported_grant_type", 400)
