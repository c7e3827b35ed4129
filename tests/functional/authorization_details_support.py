"""Rich Authorization Requests (RFC 9396) in the functional tests: a `charge` object, and a code that holds one."""

from __future__ import annotations

import json
from typing import Any

from tests.demo import AUDIENCE, CHALLENGE, WEB_REDIRECT

ORDER = {"type": "charge", "actions": ["create"], "amount": 1250, "currency": "usd",
         "description": "Order 1042", "max_charges": 1}
# As the grant holds it: members sorted, defaults filled in.
GRANTED = {"actions": ["create"], "amount": 1250, "currency": "usd", "description": "Order 1042", "max_charges": 1,
           "type": "charge"}


def details(*entries: dict[str, Any]) -> str:
    return json.dumps(list(entries))


def canonical(*entries: dict[str, Any]) -> str:
    """What the authorization endpoint stores: the checked details' canonical JSON."""
    return json.dumps(list(entries), separators=(",", ":"), sort_keys=True)


def code_with(*entries: dict[str, Any], scope: str = "charges:read charges:write", resource: str | None = None,
              grant_id: str | None = None) -> str:
    """A code as the authorization endpoint stores it after the person approved `entries` (real CodeStore)."""
    from authgate.stores.codes import CodeStore

    return CodeStore().create(client_id="demo-web", tenant_id="demo", redirect_uri=WEB_REDIRECT,
                              code_challenge=CHALLENGE, code_challenge_method="S256", scope=scope, subject="alice",
                              resource=None if resource == AUDIENCE else resource, grant_id=grant_id,
                              authorization_details=canonical(*entries) if entries else None)
