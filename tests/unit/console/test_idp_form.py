"""console.idp_form: the kinds of identity provider the console adds, and the 400 page for any other."""

from __future__ import annotations

import pytest

from authgate.console.idp_form import kind_of
from authgate.errors import ApiError


def test_a_kind_the_console_adds_is_taken_and_any_other_named_short_in_the_400() -> None:
    assert [kind_of(k) for k in ("oidc", "google", "apple", "saml", "idjag")] == [
        "oidc", "google", "apple", "saml", "idjag"]
    with pytest.raises(ApiError) as refused:
        kind_of("ldap<script>" + "x" * 40)
    assert (refused.value.code, refused.value.detail) == (
        "invalid_request", "There is no kind 'ldap<script>xxxx': the kinds are oidc, google, apple, saml, idjag.")
