"""stores.client_cache: a client's error format for the guard, read in the request's batch on a miss, kept 60 s."""

from __future__ import annotations

from authgate.clock import ManualClock
from authgate.stores import client_cache
from authgate.stores.batch import BatchRead
from authgate.stores.client_cache import TTL_SECONDS
from tests.bearer_requests import seed_client


def looked_up(client_id: str) -> tuple[bool, str | None]:
    """(whether the batch had to read the client, its error format)."""
    reads = BatchRead()
    lookup = client_cache.lookup(reads, client_id)
    reads.run()
    return lookup.cached is None, lookup.error_format()


def test_a_miss_reads_the_client_in_the_batch_then_the_answer_is_kept(aws: None, clock: ManualClock) -> None:
    seed_client("svc", error_format="legacy-a")
    assert looked_up("svc") == (True, "legacy-a")
    clock.advance(TTL_SECONDS - 1)
    assert looked_up("svc") == (False, "legacy-a")
    clock.advance(1)
    assert looked_up("svc") == (True, "legacy-a")


def test_a_missing_or_other_environment_client_is_none_and_that_is_kept_too(aws: None, clock: ManualClock) -> None:
    seed_client("staging-svc", environment="staging")
    assert looked_up("staging-svc") == (True, None)
    assert looked_up("nobody") == (True, None)
    assert looked_up("nobody") == (False, None)
