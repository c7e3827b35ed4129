"""A grant's charge budget (RFC 9396 `charge` details): how many charges one approval has paid for.

One item per grant that has charged, in ChargesTable beside the tenant's charges but under its own
partition key (`grant#<grant_id>`, sort key `budget`), so no tenant's Query of charges ever meets it.
Created lazily by the first charge (no write when a grant is issued: most grants never charge, and a
CIBA grant issued elsewhere uses it the same way), counted up by ONE conditional update inside the
charge's own transaction (stores.grant_budgets): a refused or failed charge spends nothing.
"""

from __future__ import annotations

from typing import NamedTuple

PARTITION = "grant#"
SORT_KEY = "budget"


class Budget(NamedTuple):
    """What a charge under `charge` details may spend: the grant it counts against and the most it may count."""

    grant_id: str
    max_charges: int
