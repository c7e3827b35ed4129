"""Charges: create (optionally idempotent), read and list, always within the caller's tenant."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from authgate.charges import cursor
from authgate.charges.idempotency import ScopedKey, fingerprint, run_once
from authgate.charges.model import Charge, is_charge_id, new_charge_id
from authgate.charges.tenants import enabled_currencies
from authgate.charges.validation import ChargeRequest, parse_charge_request
from authgate.errors import ApiError, FieldError
from authgate.stores.charges import ChargeStore, KeyAlreadyCharged, Marker

if TYPE_CHECKING:
    from authgate.tokens.guard import Principal

DEFAULT_LIMIT = 10
MAX_LIMIT = 100


@dataclass(frozen=True)
class Created:
    """The result of POST /charges: the response body exactly as first sent, and whether it is a replay."""

    charge_id: str
    body: str
    replayed: bool
    status: int = 201


def _stored(charge: Charge) -> dict[str, Any]:
    # The body is kept as its serialized text so a replay is byte-for-byte the first response.
    return {"status": 201, "charge_id": charge.charge_id,
            "body": json.dumps(charge.to_json(), separators=(",", ":"), ensure_ascii=False)}


def _validated(principal: Principal, body: dict[str, Any]) -> ChargeRequest:
    request = parse_charge_request(body)
    if request.currency not in enabled_currencies(principal.tenant):
        raise ApiError("currency_not_enabled", f"Currency {request.currency} is not enabled for this account.",
                       field_errors=(FieldError("/currency", "is not enabled for this account"),))
    return request


def _charge(principal: Principal, request: ChargeRequest, request_hash: str | None = None) -> Charge:
    return Charge(tenant_id=principal.tenant, charge_id=new_charge_id(), amount=request.amount,
                  currency=request.currency, created=int(time.time()), client_id=principal.client_id,
                  description=request.description, invoice_id=request.invoice_id, request_hash=request_hash)


def create_charge(principal: Principal, body: dict[str, Any], key: str | None,
                  store: ChargeStore | None = None) -> Created:
    """Validate, then write the charge; with a key, at most once per (client, key) (contract 7.6)."""
    store = store or ChargeStore()
    request = _validated(principal, body)
    if key is None:
        charge = _charge(principal, request)
        store.create(charge)
        stored = _stored(charge)
        return Created(stored["charge_id"], stored["body"], replayed=False)

    scoped = ScopedKey(principal.client_id, key)
    canonical = request.canonical()
    request_hash = fingerprint(canonical)
    recovered: list[bool] = []

    def first_attempt() -> dict[str, Any]:
        charge = _charge(principal, request, request_hash)
        try:
            store.create(charge, Marker(scoped.digest, request_hash))
        except KeyAlreadyCharged as done:
            # An earlier attempt with this key wrote its charge and then died before its
            # idempotency record was completed (a timeout): hand back that charge.
            if done.request_hash != request_hash:
                raise ApiError("idempotency_key_reused",
                               "This Idempotency-Key was already used with a different request body.") from None
            existing = store.get(done.tenant_id, done.charge_id)
            if existing is None:
                raise RuntimeError(f"idempotency marker names missing charge {done.charge_id}") from None
            recovered.append(True)
            return _stored(existing)
        return _stored(charge)

    outcome = run_once(scoped, canonical, first_attempt)
    result = outcome.result
    return Created(result["charge_id"], result["body"], replayed=outcome.replayed or bool(recovered),
                   status=int(result["status"]))


def get_charge(principal: Principal, charge_id: str, store: ChargeStore | None = None) -> dict[str, Any]:
    """The charge, or 404 not_found, also when it belongs to another tenant (no existence leak)."""
    charge = (store or ChargeStore()).get(principal.tenant, charge_id) if is_charge_id(charge_id) else None
    if charge is None:
        raise ApiError("not_found", f"No charge {charge_id} exists." if is_charge_id(charge_id) else "No such charge.")
    return charge.to_json()


def _bad_parameter(name: str, detail: str) -> ApiError:
    return ApiError("invalid_request", detail, field_errors=(FieldError("", detail, location="query", name=name),))


def page_parameters(query: dict[str, list[str]]) -> tuple[int, str | None]:
    """`limit` (1-100, default 10) and `cursor` from the query string, each at most once."""
    for name, values in query.items():
        if name not in ("limit", "cursor"):
            raise _bad_parameter(name, f"Unknown query parameter {name!r}; use limit and cursor.")
        if len(values) > 1:
            raise _bad_parameter(name, f"Send {name} once.")
    raw_limit = query["limit"][0] if query.get("limit") else None
    limit = DEFAULT_LIMIT
    if raw_limit is not None:
        if not (raw_limit.isascii() and raw_limit.isdigit() and 1 <= int(raw_limit) <= MAX_LIMIT):
            raise _bad_parameter("limit", f"limit must be an integer from 1 to {MAX_LIMIT}.")
        limit = int(raw_limit)
    return limit, query["cursor"][0] if query.get("cursor") else None


def list_charges(principal: Principal, limit: int, after_cursor: str | None,
                 store: ChargeStore | None = None) -> dict[str, Any]:
    """One page of the tenant's charges, newest first: {data, has_more, next_cursor}."""
    before = cursor.decode(principal.tenant, after_cursor) if after_cursor is not None else None
    charges, has_more = (store or ChargeStore()).page(principal.tenant, limit, before)
    next_cursor = cursor.encode(principal.tenant, charges[-1].charge_id) if has_more and charges else None
    return {"object": "list", "data": [c.to_json() for c in charges], "has_more": has_more,
            "next_cursor": next_cursor}
