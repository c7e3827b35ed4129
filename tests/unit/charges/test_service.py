"""charges.service: create (at most once per client and Idempotency-Key), read within the tenant, list by page."""

from __future__ import annotations

import json

import pytest

from authgate.billing.errors import IdempotencyKeyReused
from authgate.clock import ManualClock
from authgate.errors import ApiError
from authgate.stores.tenants import TenantStore
from authgate.tenants.model import Tenant
from authgate.tokens.principal import Principal

ALICE = Principal(subject="svc", client_id="svc", tenant="t1", scopes=frozenset({"charges:write"}), jti="j",
                  grant_id=None, expires_at=0)
BODY = {"amount": 500, "currency": "usd", "description": "coffee"}


@pytest.fixture
def tenant(aws: None, clock: ManualClock) -> None:
    TenantStore().put(Tenant("t1", currencies=("USD",)))
    TenantStore().put(Tenant("t2", currencies=("usd",)))


def test_a_charge_is_created_and_read_back_within_its_tenant(tenant: None, clock: ManualClock) -> None:
    from authgate.charges import service
    from authgate.stores.batch import BatchRead

    created = service.create_charge(ALICE, BODY, key=None)
    body = json.loads(created.body)
    assert (created.replayed, created.status, body["amount"], body["currency"], body["created"]) == (
        False, 201, 500, "usd", int(clock()))
    reads = BatchRead()
    pending = service.charge_reader(created.charge_id)(ALICE, reads)
    other = service.charge_reader(created.charge_id)(ALICE._replace(tenant="t2"), reads)
    reads.run()
    assert service.found_charge(created.charge_id, pending) == body
    with pytest.raises(ApiError) as info:  # another tenant's charge does not exist for it
        service.found_charge(created.charge_id, other)
    assert (info.value.code, info.value.detail) == ("not_found", f"No charge {created.charge_id} exists.")


def test_a_currency_the_tenant_has_not_enabled_is_a_field_error(tenant: None) -> None:
    from authgate.charges import service

    with pytest.raises(ApiError) as info:
        service.create_charge(ALICE, {**BODY, "currency": "eur"}, key=None)
    assert (info.value.code, [tuple(f)[:2] for f in info.value.field_errors]) == (
        "currency_not_enabled", [("/currency", "is not enabled for this account")])


def test_an_idempotency_key_replays_the_first_response_byte_for_byte(tenant: None) -> None:
    from authgate.charges import service

    first = service.create_charge(ALICE, BODY, key="k-1")
    # Without the batch's record (a concurrent duplicate), the write's condition finds the first one.
    again = service.create_charge(ALICE, BODY, key="k-1")
    assert (again.replayed, again.status, again.charge_id, again.body) == (True, 201, first.charge_id, first.body)


def test_one_key_for_two_different_requests_is_refused(tenant: None) -> None:
    from authgate.charges import service

    service.create_charge(ALICE, BODY, key="k-1")
    with pytest.raises(IdempotencyKeyReused):
        service.create_charge(ALICE, {**BODY, "amount": 501}, key="k-1")
    # Keys are per client: another client's k-1 is its own.
    assert not service.create_charge(ALICE._replace(client_id="other"), BODY, key="k-1").replayed


@pytest.mark.parametrize(("query", "name", "detail"), [
    ({"limit": ["0"]}, "limit", "limit must be an integer from 1 to 100."),
    ({"limit": ["101"]}, "limit", "limit must be an integer from 1 to 100."),
    ({"limit": ["٣"]}, "limit", "limit must be an integer from 1 to 100."),
    ({"limit": ["5", "6"]}, "limit", "Send limit once."),
    ({"page": ["2"]}, "page", "Unknown query parameter 'page'; use limit and cursor."),
])
def test_bad_page_parameters_name_the_parameter(query: dict[str, list[str]], name: str, detail: str) -> None:
    from authgate.charges.service import page_parameters

    with pytest.raises(ApiError) as info:
        page_parameters(query)
    assert (info.value.code, info.value.detail, info.value.field_errors[0].location, info.value.field_errors[0].name) == (
        "invalid_request", detail, "query", name)


def test_pages_are_newest_first_and_the_cursor_continues(tenant: None, clock: ManualClock) -> None:
    from authgate.charges import service

    ids = []
    for n in range(3):
        ids.append(service.create_charge(ALICE, {**BODY, "amount": 100 + n}, key=None).charge_id)
        clock.advance(1)
    assert service.page_parameters({}) == (10, None)
    first = service.list_charges(ALICE, 2, None)
    assert ([c["id"] for c in first["data"]], first["has_more"]) == ([ids[2], ids[1]], True)
    rest = service.list_charges(ALICE, 2, first["next_cursor"])
    assert ([c["id"] for c in rest["data"]], rest["has_more"], rest["next_cursor"]) == ([ids[0]], False, None)
    assert service.list_charges(ALICE._replace(tenant="t2"), 10, None)["data"] == []
