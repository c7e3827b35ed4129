"""administration.unknown: what is said of a thing the stack does not have, and the command that lists what there
is, the same from a command and from the console."""

from __future__ import annotations

import pytest

from authgate.administration.input import InvalidInput
from authgate.administration.unknown import existing_tenants, see, unknown_tenant


def test_the_command_is_quoted_as_a_shell_reads_it() -> None:
    assert see("tenants", "list") == "(see `authgate tenants list`)"
    assert see("clients", "list", "--tenant", "a b'c") == "(see `authgate clients list --tenant 'a b'\"'\"'c'`)"


def test_an_unknown_tenant_is_named_as_typed() -> None:
    assert unknown_tenant("ac<me>") == "tenant 'ac<me>' does not exist here (see `authgate tenants list`)"


def test_the_first_tenant_that_is_not_there_is_named(aws: None) -> None:
    from authgate_cli.local.loaders import tenants as seed

    seed([{"tenant_id": "demo", "name": "Demo", "currencies": ["usd"], "forbidden_scopes": [],
           "approved_clients": []}])
    existing_tenants(["demo", "demo"])
    existing_tenants([])
    with pytest.raises(InvalidInput) as refused:
        existing_tenants(["demo", "gone", "also-gone"])
    assert str(refused.value) == "tenant 'gone' does not exist here (see `authgate tenants list`)"
