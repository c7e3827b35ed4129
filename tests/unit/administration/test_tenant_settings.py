"""The one table of a tenant's settings: what a value given reads as, and which changes weaken a tenant."""

from __future__ import annotations

import pytest

from authgate.administration.input import InvalidInput
from authgate.administration.tenant_settings import SETTINGS, changed, given, new_tenant, weakened
from authgate.tenants.model import Tenant

DEMO = Tenant("demo", name="Demo", currencies=("usd",), forbidden_scopes=frozenset({"charges:refund"}),
              sca_threshold=1000, require_mfa=True, approval_webhook="https://hooks.example/ciba")


def test_given_reads_what_was_given_and_nothing_else() -> None:
    assert given({"currencies": ["USD", "eur", "usd"], "require_mfa": False, "sca_threshold": "", "name": None}) == {
        "currencies": ("usd", "eur"), "require_mfa": False, "sca_threshold": None}


def test_a_new_tenant_is_named_after_its_id_and_needs_a_currency() -> None:
    assert new_tenant("globex", {"currencies": ["usd"]}) == Tenant("globex", name="globex", currencies=("usd",))
    with pytest.raises(InvalidInput, match=r"^give at least one --currency"):
        new_tenant("globex", {})
    with pytest.raises(InvalidInput, match=r"^invalid tenant id 'a#b': 1-64 characters"):
        new_tenant("a#b", {"currencies": ["usd"]})


@pytest.mark.parametrize(("change", "weakens"), [
    ({"require_mfa": False}, True),
    ({"forbidden_scopes": frozenset()}, True),
    ({"forbidden_scopes": frozenset({"charges:refund", "charges:write"})}, False),
    ({"sca_threshold": None}, True),
    ({"sca_threshold": 5000}, True),
    ({"sca_threshold": 500}, False),
    ({"sca_max_age": 600}, True),
    ({"sca_max_age": 60}, False),
    ({"registered_clients": True}, True),
    ({"registered_clients_cap": 200}, True),
    ({"approved_clients": frozenset({"other"})}, True),
    ({"client_metadata_hosts": ("tools.example",)}, True),
    ({"approval_webhook": "https://elsewhere.example/ciba"}, True),
    ({"approval_webhook": ""}, False),
    ({"name": "Demo Inc.", "currencies": ("usd", "eur"), "login_domains": ("demo.example",)}, False),
])
def test_which_changes_weaken_a_tenant(change: dict[str, object], weakens: bool) -> None:
    after = DEMO._replace(**change)
    assert [s.field for s in changed(DEMO, after)] == [s.field for s in SETTINGS if s.field in change]
    assert bool(weakened(DEMO, after)) is weakens
