"""Grant budgets in ChargesTable (billing.grant_budget): one conditional counter per grant that has charged.

The counter is a member of the charge's TransactWriteItems (stores.charges): `used` goes up by one
only while it is below the token's `max_charges`, so of any number of concurrent charges of one
grant at most `max_charges` ever commit, and a transaction cancelled for another reason (the
idempotency key's record, the invoice, throttling) spends nothing.
"""

from __future__ import annotations

from typing import Any

from authgate.billing.grant_budget import PARTITION, SORT_KEY, Budget
from authgate.records import n, number, s
from authgate.stores.base import TableStore


def key(grant_id: str) -> dict[str, dict[str, str]]:
    return {"tenant_id": s(PARTITION + grant_id), "charge_id": s(SORT_KEY)}


class GrantBudgetStore(TableStore):
    """The budget items of ChargesTable."""

    table_setting = "charges"

    def spend_member(self, budget: Budget, tenant_id: str, now: int) -> dict[str, Any]:
        """The transaction member spending one charge of the grant's budget (condition: used < max_charges)."""
        return {"Update": {
            "TableName": self.table, "Key": key(budget.grant_id),
            "UpdateExpression": "SET #used = if_not_exists(#used, :zero) + :one, #tenant = :tenant, #at = :now",
            "ConditionExpression": "attribute_not_exists(#used) OR #used < :max",
            "ExpressionAttributeNames": {"#used": "used", "#tenant": "tenant", "#at": "updated_at"},
            "ExpressionAttributeValues": {":zero": n(0), ":one": n(1), ":max": n(budget.max_charges),
                                          ":tenant": s(tenant_id), ":now": n(now)},
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }}

    def used(self, grant_id: str) -> int:
        """How many charges the grant has made (0: none yet). One GetItem; for tests and operators."""
        item = self.find(key(grant_id))
        return number(item, "used") if item else 0
