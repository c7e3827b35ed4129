"""The tenant form's fields as the one table of settings reads them, and back."""

from __future__ import annotations

import pytest

from authgate.administration.tenant_settings import SETTINGS
from authgate.console.tenant_form import form_value, posted
from authgate.errors import ApiError

SWITCH = next(s for s in SETTINGS if s.field == "require_mfa")
LIST = next(s for s in SETTINGS if s.field == "currencies")


def test_a_form_gives_what_it_holds_and_a_field_left_out_is_not_given() -> None:
    fields = {"name": " Globex ", "currencies": " usd  eur ", "require_mfa": "no", "sca_threshold": " ",
              "sca_max_age": "60 "}
    assert posted(fields, new=False) == {"name": " Globex ", "currencies": ["usd", "eur"], "require_mfa": False,
                                         "sca_threshold": "", "sca_max_age": "60"}
    # A new tenant's empty text or number is its default; an empty optional setting is off either way.
    assert posted({"name": "", "registered_clients_cap": "", "sca_threshold": ""}, new=True) == {"sca_threshold": ""}


def test_a_switch_is_yes_or_no() -> None:
    with pytest.raises(ApiError) as refused:
        posted({"require_mfa": "on"}, new=False)
    assert (refused.value.code, refused.value.detail) == (
        "invalid_request", "Second factor required (--require-mfa) is yes or no.")


def test_the_confirmation_carries_each_value_as_its_field_holds_it() -> None:
    assert [form_value(SWITCH, True), form_value(SWITCH, False), form_value(LIST, ["usd", "eur"])] == [
        "yes", "no", "usd eur"]
