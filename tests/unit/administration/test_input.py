"""authgate.administration.input: what an operator types, refused with one reason, from the CLI and the console."""

from __future__ import annotations

import pytest

from authgate.administration.input import MAX_ID, InvalidInput, email, identifier, quoted, text
from authgate.administration.unknown import existing_tenants, see


@pytest.mark.parametrize(("value", "message"), [
    ("", "tenant must not be empty"),
    ("a" * (MAX_ID + 1), f"tenant is longer than {MAX_ID} characters"),
    ("a b", "tenant 'a b' must be printable ASCII without spaces or control characters"),
])
def test_an_identifier_is_printable_ascii_without_spaces(value: str, message: str) -> None:
    assert identifier("demo", "tenant") == "demo"
    with pytest.raises(InvalidInput, match=message):
        identifier(value, "tenant")


@pytest.mark.parametrize(("value", "message"), [
    (" ", "--name must not be empty"),
    ("x" * 201, "--name is longer than 200 characters"),
    ("Files\u202e", "--name 'Files\\u202e' contains the control character U+202E"),
    (" Files", "--name ' Files' starts or ends with a space"),
])
def test_text_is_printable_without_control_characters_or_outer_spaces(value: str, message: str) -> None:
    assert text("Files of Zoë", "--name") == "Files of Zoë"
    with pytest.raises(InvalidInput) as refused:
        text(value, "--name")
    assert str(refused.value) == message


def test_an_email_address_is_one_mail_can_be_sent_to() -> None:
    assert email("alice@example.com") == "alice@example.com"
    with pytest.raises(InvalidInput, match="--email 'alice@localhost' is not an email address"):
        email("alice@localhost")


def test_a_value_is_quoted_on_one_line_and_cut() -> None:
    assert quoted("a\nb") == "'a\\nb'"
    assert quoted("x" * 70) == repr("x" * 60 + "…")
    assert see("users", "list", "--tenant", "a b") == "(see `authgate users list --tenant 'a b'`)"


def test_a_tenant_the_stack_lacks_is_named_with_the_command_that_lists_them(aws: None) -> None:
    from authgate.stores.tenants import TenantStore
    from authgate.tenants.model import Tenant

    TenantStore().put(Tenant("demo"))
    existing_tenants(("demo",))
    with pytest.raises(InvalidInput) as refused:
        existing_tenants(("demo", "nosuch", "other"))
    assert str(refused.value) == "tenant 'nosuch' does not exist here (see `authgate tenants list`)"
