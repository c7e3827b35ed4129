"""Creating a tenant and changing its settings: the one implementation of `authgate tenants` and the console."""

from __future__ import annotations

import pytest

from authgate.administration.input import InvalidInput
from authgate.administration.tenants import Updated, create, said, update
from authgate.tenants.errors import TenantExists, TenantNotFound
from authgate.tenants.model import Tenant


def test_create_then_update_keeps_what_is_not_given(aws: None) -> None:
    from authgate.stores.tenants import TenantStore

    made = create("globex", {"currencies": ["usd"], "login_domains": ["globex.example"]})
    assert made == Tenant("globex", name="globex", currencies=("usd",), login_domains=("globex.example",))
    assert said(made, "created") == "tenant globex created (usd)"
    with pytest.raises(TenantExists, match=r"^tenant 'globex' already exists$"):
        create("globex", {"currencies": ["eur"]})
    changed = update("globex", {"require_mfa": True, "login_domains": []})
    assert changed == Updated(made, made._replace(require_mfa=True, login_domains=()))
    assert TenantStore().get("globex") == changed.after and TenantStore().login_domain_owner("globex.example") == ""


def test_refusals_are_the_commands_messages(aws: None) -> None:
    create("globex", {"currencies": ["usd"], "login_domains": ["globex.example"]})
    with pytest.raises(InvalidInput, match=r"^the login domain 'globex.example' already belongs to tenant 'globex'$"):
        create("initech", {"currencies": ["usd"], "login_domains": ["globex.example"]})
    with pytest.raises(InvalidInput, match=r"^unknown scope 'nope'; known: charges:read"):
        update("globex", {"forbidden_scopes": ["nope"]})
    with pytest.raises(TenantNotFound):
        update("nosuch", {"require_mfa": True})
