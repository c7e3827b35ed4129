"""What is said of a thing named that the stack acted on does not have: what is not there, then the `authgate`
command, as typed, that lists what there is (the same sentence from a command and from the console). A tenant is
checked before anything named in it.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable

from authgate.administration.input import InvalidInput


def see(*command: str) -> str:
    """"(see `authgate tenants list`)": the command, as typed, that lists what there is."""
    return f"(see `authgate {' '.join(shlex.quote(part) for part in command)}`)"


def unknown_tenant(tenant_id: str) -> str:
    return f"tenant {tenant_id!r} does not exist here {see('tenants', 'list')}"


def existing_tenants(tenant_ids: Iterable[str]) -> None:
    """Each tenant exists on the stack acted on; InvalidInput names the first that does not."""
    from authgate.stores.tenants import TenantStore

    store = TenantStore()
    for tenant_id in tenant_ids:
        if store.get(tenant_id) is None:
            raise InvalidInput(unknown_tenant(tenant_id))
