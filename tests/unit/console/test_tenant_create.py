"""console.tenant_create: a new tenant by the operation `authgate tenants create` runs, with its checks, its words
and its audit event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from authgate.console.tenant_create import get_tenant_create, post_tenant_create
from authgate.errors import ApiError
from tests.unit.console.page_support import get, main_text, post, signed, tenants

ADMIN = signed("admin")


def test_the_form_of_a_new_tenant(aws: None) -> None:
    answer = get_tenant_create(get("tenant-create"), ADMIN)
    text = main_text(answer)
    assert text.startswith("Create a tenant ") and text.endswith(" Create the tenant Cancel")
    assert 'method="post" action="http://127.0.0.1:3000/console/tenant-create">' in str(answer.body)
    with pytest.raises(ApiError) as support:
        get_tenant_create(get("tenant-create"), signed("support", "acme"))
    assert (support.value.code, support.value.detail) == (
        "operator_forbidden", "Your roles (support (acme)) do not allow this.")


def test_a_tenant_created_says_what_the_command_says(aws: None,
                                                     audit_events: Callable[[], list[dict[str, Any]]]) -> None:
    from authgate.stores.tenants import TenantStore

    answer = post_tenant_create(post("tenant-create", {"tenant": "globex", "name": "Globex <Corp>",
                                                       "currencies": "usd eur", "require_mfa": "yes"}), ADMIN)
    assert main_text(answer) == (
        "Tenant globex created Done: tenant globex created (usd, eur). The settings of globex")
    tenant = TenantStore().get("globex")
    assert tenant is not None and (tenant.name, tenant.currencies, tenant.require_mfa) == (
        "Globex <Corp>", ("usd", "eur"), True)
    (event,) = audit_events()
    assert (event["action"], event["tenant"], event["outcome"], event["target"]) == (
        "tenant.created", "globex", "success", {"type": "tenant", "id": "globex"})
    assert (event["details"]["name"], event["details"]["currencies"], event["details"]["require_mfa"]) == (
        "Globex <Corp>", ["usd", "eur"], True)


@pytest.mark.parametrize(("tenant", "message", "reason"), [
    ("acme", "tenant 'acme' already exists", "exists"),
    ("Bad Id", ("invalid tenant id 'Bad Id': 1-64 characters, letters, digits, '.', '_' or '-', starting with a letter "
               "or digit"), "invalid_input"),
])
def test_a_refusal_is_the_commands_message_and_a_failed_event(
        aws: None, audit_events: Callable[[], list[dict[str, Any]]], tenant: str, message: str, reason: str) -> None:
    tenants("acme")
    with pytest.raises(ApiError) as refused:
        post_tenant_create(post("tenant-create", {"tenant": tenant, "currencies": "usd"}), ADMIN)
    assert (refused.value.code, refused.value.detail) == ("invalid_request", message)
    (event,) = audit_events()
    assert (event["action"], event["outcome"], event["reason"], event["target"]) == (
        "tenant.created", "failure", reason, {"type": "tenant", "id": tenant})
