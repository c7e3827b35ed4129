"""Lambda SnapStart: what every execution environment restored from one snapshot must not share.

With SnapStart (template parameter `SnapStart=on`) Lambda runs a published version's init once,
snapshots the memory, and starts each new execution environment from that snapshot (AWS Lambda
developer guide, "Handling uniqueness with Lambda SnapStart"). Whatever init made, every restored
copy holds identically. authgate makes nothing unique at init: AWS clients (and so connections),
signing keys, the session and nonce secrets, settings and every time-based cache are built on
first use (`authgate.caches`), and ids come from `secrets`/`uuid4` (os.urandom, which the
restored microVM's kernel reseeds). Python's `random` is the exception: its state is seeded at
import and botocore's retry jitter draws from it, so restored copies would back off in lockstep.

`register(prime)`: under a SnapStart init (AWS_LAMBDA_INITIALIZATION_TYPE=snap-start) it runs
`prime` (the route modules a function imports lazily: work the first request no longer pays),
and registers `after_restore` with the runtime's `snapshot_restore_py`, a package that exists only
in Lambda's Python runtime. `after_restore()` reseeds `random` and forgets every cache, so
nothing built before the snapshot, by priming or otherwise, is shared.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable

from authgate import caches

# Set by Lambda during a SnapStart version's init (on-demand inits say "on-demand").
SNAPSTART_INIT = "snap-start"


def after_restore() -> None:
    """What a restored copy does before its first request: nothing from the snapshot is shared."""
    random.seed()  # from os.urandom, fresh in each restored microVM
    caches.reset()


def register(prime: Callable[[], None]) -> bool:
    """Prime before the snapshot and hook the restore, when this init is a SnapStart one."""
    # Lambda's own runtime variable, not deployment configuration (authgate.settings).
    if os.environ.get("AWS_LAMBDA_INITIALIZATION_TYPE") != SNAPSTART_INIT:
        return False
    try:
        from snapshot_restore_py import register_after_restore
    except ImportError:  # only Lambda's Python runtime ships it
        return False
    prime()
    register_after_restore(after_restore)
    return True
