"""Charges: create (optionally idempotent), read and list, always within the caller's tenant."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from authgate import audit, clock
from authgate.authorization_details.charge import allowance
from authgate.authorization_details.errors import DetailsExceeded
from authgate.billing.charge import Charge
from authgate.billing.errors import IdempotencyKeyReused, IdempotencyKeyUsed
from authgate.billing.grant_budget import Budget
from authgate.billing.idempotency import TTL_SECONDS, IdempotencyRecord
from authgate.charges import cursor, strong_authentication
from authgate.charges.charge_request import ChargeRequest, parse_charge_request
from authgate.charges.idempotency import digest, fingerprint
from authgate.charges.model import is_charge_id, new_charge_id, representation
from authgate.charges.tenants import currencies_of
from authgate.errors import ApiError, FieldError
from authgate.stores.charges import ChargeStore
from authgate.stores.tenant_cache import get_tenant

if TYPE_CHECKING:
    from authgate.stores.batch import BatchRead, Pending
    from authgate.tokens.principal import Principal

DEFAULT_LIMIT = 10
MAX_LIMIT = 100


class Created(NamedTuple):
    """The result of POST /charges: the response body exactly as first sent, and whether it is a replay."""

    charge_id: str
    body: str
    replayed: bool
    status: int = 201


def _body(charge: Charge) -> str:
    # Serialized once and kept as text, so a replay is byte for byte the first response.
    return json.dumps(representation(charge), separators=(",", ":"), ensure_ascii=False)


def _validated(principal: Principal, body: dict[str, Any]) -> ChargeRequest:
    """The charge, valid for its tenant (currencies), and strongly enough authenticated for its amount
    (RFC 9470): checked before a replay or a write, so a refused request leaves its key unused."""
    request = parse_charge_request(body)
    tenant = get_tenant(principal.tenant)  # warm-cached: the one read of both checks
    if request.currency not in currencies_of(tenant):
        raise ApiError("currency_not_enabled", f"Currency {request.currency} is not enabled for this account.",
                       field_errors=(FieldError("/currency", "is not enabled for this account"),))
    strong_authentication.check(principal, tenant, request.amount, clock.seconds())
    return request


def _budget(principal: Principal, request: ChargeRequest) -> Budget | None:
    """What a token with authorization_details may spend (RFC 9396; docs/payments-consent.md): None for a token
    without them (scope alone decides); DetailsExceeded when the charge is not within its charge object. After
    the step-up check (RFC 9470 first), before a replay or a write."""
    if principal.authorization_details is None:
        return None
    max_charges = allowance(principal.authorization_details, request.amount, request.currency)
    if principal.grant_id is None:
        raise DetailsExceeded("The access token's authorization_details belong to no grant to count charges against.")
    return Budget(principal.grant_id, max_charges)


def _charge(principal: Principal, request: ChargeRequest, budget: Budget | None,
            request_hash: str | None = None) -> Charge:
    return Charge(tenant_id=principal.tenant, charge_id=new_charge_id(), amount=request.amount,
                  currency=request.currency, created=clock.seconds(), client_id=principal.client_id,
                  description=request.description, invoice_id=request.invoice_id, request_hash=request_hash,
                  created_by=_creator(principal),
                  grant_id=budget.grant_id if budget else None)


def _creator(principal: Principal) -> dict[str, Any]:
    """Who makes a charge: the token's `sub` and `act` (RFC 8693 4.1), and for a person's token their username, which
    relates their charges to those made before `sub` became the user_id (those name the username as `sub`)."""
    creator: dict[str, Any] = {"sub": principal.subject, "act": principal.act}
    if principal.username:
        creator["username"] = principal.username
    return creator


def _replay(record: IdempotencyRecord, request_hash: str, store: ChargeStore) -> Created:
    """The recorded response for the key, if this request is the one that made it."""
    if record.request_hash != request_hash:
        raise IdempotencyKeyReused(record.charge_id)
    body = record.body
    if body is None:  # a record that predates recording the response: render its charge
        existing = store.get(record.tenant_id, record.charge_id)
        if existing is None:
            raise RuntimeError(f"idempotency record names missing charge {record.charge_id}")
        body = _body(existing)
    return Created(record.charge_id, body, replayed=True, status=record.status)


def create_charge(principal: Principal, body: dict[str, Any], key: str | None,
                  recorded: IdempotencyRecord | None = None, store: ChargeStore | None = None) -> Created:
    """Validate, then write the charge; with a key, at most once per (client, key) (contract 7.6).

    `recorded` is the key's live record when the request's batch read found one (a replay). Under RFC 9396
    `charge` details the charge also spends one of its grant's `max_charges`, in the same transaction: a
    replay spends nothing, a refused or failed charge nothing either. A charge made is recorded
    (charge.created), and one an approval's limits refuse (charge.refused: docs/audit.md); a replay is not.
    """
    store = store or ChargeStore()
    request = _validated(principal, body)
    try:
        created = _create(principal, request, key, recorded, store)
    except DetailsExceeded as refused:
        _record("charge.refused", principal, request, "", reason="exceeds_approval", why=str(refused))
        raise
    if not created.replayed:
        _record("charge.created", principal, request, created.charge_id, idempotent=key is not None)
    return created


def _create(principal: Principal, request: ChargeRequest, key: str | None, recorded: IdempotencyRecord | None,
            store: ChargeStore) -> Created:
    budget = _budget(principal, request)
    if key is None:
        charge = _charge(principal, request, budget)
        store.create(charge, budget=budget)
        return Created(charge.charge_id, _body(charge), replayed=False)
    request_hash = fingerprint(request.canonical())
    if recorded is not None:
        return _replay(recorded, request_hash, store)
    charge = _charge(principal, request, budget, request_hash)
    first = _body(charge)
    record = IdempotencyRecord(digest=digest(principal.client_id, key), request_hash=request_hash,
                               tenant_id=principal.tenant, charge_id=charge.charge_id, status=201, body=first,
                               expiration=clock.seconds() + TTL_SECONDS)
    try:
        store.create(charge, record, budget)
    except IdempotencyKeyUsed as used:
        # Another request with this key wrote first: a concurrent duplicate that won the race, or
        # an earlier attempt that timed out after its write. Its response is this one's.
        return _replay(used.record, request_hash, store)
    return Created(charge.charge_id, first, replayed=False)


def _record(action: audit.Action, principal: Principal, request: ChargeRequest, charge_id: str, *,
            reason: str | None = None, **facts: Any) -> None:
    """A charge's audit event: made by the token's client, for its subject and `act` chain."""
    audit.record(action, principal.tenant, actor=audit.client(principal.client_id),
                 target=audit.Party("charge", charge_id), outcome="failure" if reason else "success", reason=reason,
                 details={"amount": request.amount, "currency": request.currency, "client_id": principal.client_id,
                          "subject": principal.subject, "act": principal.act, "grant_id": principal.grant_id,
                          "invoice_id": request.invoice_id, **facts})


def charge_reader(charge_id: str) -> Callable[[Principal, BatchRead], Pending | None]:
    """The prefetch of GET /charges/{id}: the charge, read with the guard's batch (tokens.guard)."""
    def prefetch(principal: Principal, reads: BatchRead) -> Pending | None:
        return ChargeStore().prefetch(reads, principal.tenant, charge_id) if is_charge_id(charge_id) else None

    return prefetch


def found_charge(charge_id: str, pending: Pending | None) -> dict[str, Any]:
    """The prefetched charge, or 404 not_found, also when it belongs to another tenant (no existence leak)."""
    charge = ChargeStore.found(pending)
    if charge is None:
        raise ApiError("not_found", f"No charge {charge_id} exists." if is_charge_id(charge_id) else "No such charge.")
    return representation(charge)


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
    return {"object": "list", "data": [representation(c) for c in charges], "has_more": has_more,
            "next_cursor": next_cursor}
