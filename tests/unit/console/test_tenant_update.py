"""console.tenant_update: only the settings the form changed are changed, a change that weakens the tenant's
security is asked for first, and each is `authgate tenants update`'s operation, words and audit event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from authgate.console.tenant_update import get_tenant_update, post_tenant_update
from authgate.errors import ApiError
from tests.unit.console.page_support import get, main_text, post, signed

ADMIN = signed("admin")


@pytest.fixture
def acme(aws: None) -> None:
    """Tenant acme, its second factor required."""
    from authgate_cli.local.loaders import tenants as seed

    seed([{"tenant_id": "acme", "name": "Acme", "currencies": ["usd"], "forbidden_scopes": [], "approved_clients": [],
           "require_mfa": True}])


def test_the_form_holds_the_settings_as_they_are(acme: None) -> None:
    answer = get_tenant_update(get("tenant-update", [("tenant", "acme")]), ADMIN)
    text = main_text(answer)
    assert text.startswith("Change the settings of acme ") and text.endswith(" Save the changes Cancel")
    assert '<input type="hidden" name="tenant" value="acme">' in str(answer.body)


@pytest.mark.parametrize(("tenant", "message"), [
    ("", "Name the tenant with tenant."),
    ("Bad Id", ("invalid tenant id 'Bad Id': 1-64 characters, letters, digits, '.', '_' or '-', starting with a letter "
               "or digit")),
])
def test_a_tenant_named_as_no_tenant_is_refused(acme: None, tenant: str, message: str) -> None:
    with pytest.raises(ApiError) as shown:
        get_tenant_update(get("tenant-update", [("tenant", tenant)]), ADMIN)
    with pytest.raises(ApiError) as posted:
        post_tenant_update(post("tenant-update", {"tenant": tenant}), ADMIN)
    assert (shown.value.code, shown.value.detail) == (posted.value.code, posted.value.detail) == (
        "invalid_request", message)


def test_a_form_that_changes_nothing_says_so(acme: None, audit_events: Callable[[], list[dict[str, Any]]]) -> None:
    answer = post_tenant_update(post("tenant-update", {"tenant": "acme", "name": "Acme", "require_mfa": "yes"}), ADMIN)
    assert main_text(answer) == (
        "Change the settings of acme Done: nothing changed: every setting is as it was. The settings of acme")
    assert audit_events() == []


def test_a_weaker_setting_is_asked_for_first(acme: None, audit_events: Callable[[], list[dict[str, Any]]]) -> None:
    from authgate.stores.tenants import TenantStore

    form = {"tenant": "acme", "name": "Acme <Inc>", "require_mfa": "no"}
    asked = post_tenant_update(post("tenant-update", form), ADMIN)
    assert main_text(asked) == (
        "Weaken the security of acme? This weakens the security of tenant acme: Second factor required: yes becomes "
        "no. It also changes: Name: Acme becomes Acme <Inc>. Change the settings Cancel")
    assert '<input type="hidden" name="confirmed" value="yes">' in str(asked.body)
    assert TenantStore().get("acme").require_mfa is True  # type: ignore[union-attr]
    done = post_tenant_update(post("tenant-update", {**form, "confirmed": "yes"}), ADMIN)
    assert main_text(done) == "Change the settings of acme Done: tenant acme updated (usd). The settings of acme"
    tenant = TenantStore().get("acme")
    assert tenant is not None and (tenant.name, tenant.require_mfa) == ("Acme <Inc>", False)
    (event,) = audit_events()
    assert (event["action"], event["outcome"], event["details"]) == (
        "tenant.changed", "success", {"via": "console", "console_action": "update", "roles": "admin",
                                      "name": "Acme <Inc>", "require_mfa": False})


def test_an_unknown_tenant_and_a_role_that_may_not_change_it(acme: None) -> None:
    with pytest.raises(ApiError) as missing:
        post_tenant_update(post("tenant-update", {"tenant": "globex", "name": "G"}), ADMIN)
    assert (missing.value.code, missing.value.detail) == ("not_found", "There is no tenant 'globex'.")
    with pytest.raises(ApiError) as auditor:
        post_tenant_update(post("tenant-update", {"tenant": "acme", "name": "G"}), signed("auditor"))
    assert (auditor.value.code, auditor.value.detail) == (
        "operator_forbidden", "Your roles (auditor) do not allow this in tenant acme.")
