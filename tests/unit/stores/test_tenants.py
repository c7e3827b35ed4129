"""stores.tenants: TenantStore against moto's DynamoDB, as the demo seed writes it."""

from __future__ import annotations

import pytest


@pytest.fixture
def seeded(aws):
    from authgate_cli.local.seed import load_seed

    return load_seed()


def test_tenant_rules(seeded):
    from authgate.stores.tenants import TenantStore

    demo = TenantStore().get("demo")
    assert demo.currencies == ("usd", "eur")
    assert demo.forbids("charges:refund") and not demo.forbids("charges:read")
    assert not demo.has_approved("demo-partner") and demo.has_approved("demo-web")
    assert TenantStore().get("acme").currencies == ("usd",)
    assert TenantStore().get("nope") is None
