"""console.tenants: every tenant (`authgate tenants list`) with its settings in words, each escaped and a link to its
page; the way to create one for who may change tenants; `tenants.view` judged first."""

from __future__ import annotations

import pytest

from authgate.console.tenants import get_tenants
from authgate.errors import ApiError
from tests.unit.console.page_support import get, main_text, signed, tenants


@pytest.fixture
def some(aws: None) -> None:
    from authgate_cli.local.loaders import tenants as seed

    tenants("globex")
    seed([{"tenant_id": "acme", "name": "<b>Acme</b>", "currencies": ["usd", "eur"], "forbidden_scopes": [],
           "approved_clients": [], "require_mfa": True}])


@pytest.mark.usefixtures("some")
def test_each_tenant_in_words_and_a_way_to_create_one() -> None:
    answer = get_tenants(get("tenants"), signed("admin"))
    assert main_text(answer) == (
        "Tenants 2 tenants Tenant Name Currencies Second factor required acme <b>Acme</b> usd, eur yes "
        "globex globex usd no Create a tenant")
    body = str(answer.body)
    assert "<b>Acme" not in body and "&lt;b&gt;Acme&lt;/b&gt;" in body
    assert '<a href="http://127.0.0.1:3000/console/tenant?tenant=acme">acme</a>' in body
    assert '<a href="http://127.0.0.1:3000/console/tenant-create">Create a tenant</a>' in body


def test_an_auditor_reads_them_and_one_tenant_is_said_as_one(aws: None) -> None:
    tenants("acme")
    assert main_text(get_tenants(get("tenants"), signed("auditor"))) == (
        "Tenants 1 tenant Tenant Name Currencies Second factor required acme acme usd no")


@pytest.mark.usefixtures("some")
def test_support_is_refused() -> None:
    with pytest.raises(ApiError) as refused:
        get_tenants(get("tenants"), signed("support", "acme"))
    assert (refused.value.code, refused.value.detail) == (
        "operator_forbidden", "Your roles (support (acme)) do not allow this.")
