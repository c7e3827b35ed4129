"""Reading the trail back: the events of a period, and the verification of its objects (`authgate events`).

Both read the same objects, day by day (the days of `since` to `until`, with a day's margin: an
object is named by the day it was written, its events may be a little older). Listing keeps each
event once (a batch the stream delivered twice may have been kept twice) and orders them by time,
in the chain's order within a millisecond. Verification also reads the object just before the period, so the first object's
link to its predecessor is checked too, and trusts only the stack's own MAC key (the one the trail seals with) and the
keys its caller names: an object's header names the key that sealed it, and whoever can write an object can name a key
of their own, so a seal by any other key is a finding, never checked with that key.

An S3 or KMS error of a read (denied, a bucket or key gone, throttling, a timeout) is TrailUnreadable, with AWS's code.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from authgate.audit.event import iso_time
from authgate.audit_trail.chain import Damaged, Stored, Verified, open_object, signed_part, verify
from authgate.audit_trail.errors import TrailUnreadable
from authgate.audit_trail.mac import KmsMac
from authgate.audit_trail.trail import Trail

DAY_MS = 86_400_000
# Objects read at once from a bucket (each a GetObject); a directory reads them one after another.
PARALLEL_READS = 8


@contextlib.contextmanager
def _reading() -> Iterator[None]:
    """An AWS error of the reads inside becomes TrailUnreadable (its code kept), nothing else."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        yield
    except (ClientError, BotoCoreError) as exc:
        raise TrailUnreadable(exc) from exc


def day(ms: int) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(ms // 1000))


def days(trail: Trail, since_ms: int | None, until_ms: int | None, margin: int = DAY_MS) -> list[str]:
    """The days with objects that may hold events of [since, until]."""
    low = day(since_ms) if since_ms is not None else ""
    high = day(until_ms + margin) if until_ms is not None else "9999"
    return [d for d in trail.store.dates() if low <= d <= high]


def _read(trail: Trail, dates: list[str], versions: bool = True) -> Iterator[Stored]:
    """The objects of `dates`, oldest first, read a few at a time from a bucket; with `versions`, each with the
    count of its versions (a listing of the bucket's versions: what verification needs, a listing does not)."""
    listed = [(name, counts.get(name, 1)) for date in dates
              for counts in [trail.store.versions(date) if versions else {}] for name in trail.store.names(date)]
    if not trail.store.shared_head:
        for name, count in listed:
            yield trail.store.stored(name)._replace(versions=count)
        return
    # Each read in the caller's context (a copy each: one context is entered by one thread at a time), so that
    # what the request bound (its log correlation, the function it runs in) holds in the pool's threads too.
    contexts = [contextvars.copy_context() for _ in listed]
    with ThreadPoolExecutor(PARALLEL_READS) as pool:
        read = pool.map(lambda item, context: context.run(trail.store.stored, item[0]), listed, contexts)
        for (_, count), stored in zip(listed, read, strict=True):
            yield stored._replace(versions=count)


def events(trail: Trail, since_ms: int | None = None, until_ms: int | None = None,
           match: Callable[[dict[str, Any]], bool] = lambda _: True) -> list[dict[str, Any]]:
    """The kept events of [since, until] that `match`, each once, oldest first. A damaged object's
    events are left out (`verify` names it)."""
    since = iso_time(since_ms) if since_ms is not None else ""
    until = iso_time(until_ms) if until_ms is not None else "~"
    with _reading():
        kept = _events_of(_read(trail, days(trail, since_ms, until_ms), versions=False))
    return [e for e in kept if since <= str(e.get("time", "")) <= until and match(e)]


class Follower:
    """The events of objects kept since the last `poll` (`authgate events tail`, the demo app's page):
    each poll lists the newest objects of the last two days, and reads only those not read before."""

    def __init__(self, trail: Trail, window: int = 100) -> None:
        self.trail = trail
        self.window = window
        self._read: set[str] = set()

    def poll(self) -> list[dict[str, Any]]:
        with _reading():
            store = self.trail.store
            listed = [name for date in store.dates()[-2:] for name in store.latest(date, self.window)]
            names = [name for name in listed if name not in self._read]
            found = _events_of(store.stored(name) for name in names)
        self._read = set(listed)  # what falls out of the window never comes back into it
        return found


def _events_of(objects: Iterable[Stored]) -> list[dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for stored in objects:
        try:
            kept = open_object(stored.body)[1]
        except Damaged:
            continue
        for event in kept:
            found.setdefault(event["id"], event)
    # By time, and in the chain's order within a millisecond (a stable sort).
    return sorted(found.values(), key=lambda event: str(event.get("time", "")))


def trusted_keys(trail: Trail, trusted: Iterable[str] = ()) -> frozenset[str]:
    """The keys whose seals verification checks: the trail's own (the stack's MAC key, or the local directory's) and
    those the caller names (`authgate events verify --trust-key`: a key the stack sealed with before)."""
    return frozenset(key for key in (trail.signer.key_id, *trusted) if key)


def mac_checker(trail: Trail) -> Callable[[Mapping[str, Any]], bool]:
    """Checks the seal of a header that names a trusted key (chain.verify asks for no other): the trail's own key, or
    an earlier KMS key (VerifyMac)."""
    kms: dict[str, KmsMac] = {}

    def valid(header: Mapping[str, Any]) -> bool:
        key, mac = str(header.get("key", "")), str(header.get("mac", ""))
        if key == trail.signer.key_id:
            return trail.signer.valid(signed_part(header), mac)
        if not key.startswith("arn:"):
            return False  # a local key other than the directory's: its material is not here
        return kms.setdefault(key, KmsMac(key)).valid(signed_part(header), mac)

    return valid


def verify_trail(trail: Trail, since_ms: int | None = None, trusted: Collection[str] = ()) -> Verified:
    """Every object from the day of `since` (the whole chain without it) to the newest, checked; a seal trusted only
    when made by the trail's own key or one of `trusted`."""
    with _reading():
        all_days = trail.store.dates()
        low = day(since_ms) if since_ms is not None else ""
        chosen = [d for d in all_days if d >= low]
        earlier = [d for d in all_days if d < low]
        anchor = None
        for date in reversed(earlier):
            name = trail.store.newest(date)
            if name is not None:
                anchor = trail.store.stored(name)
                break
        return verify(_read(trail, chosen), mac_checker(trail), keys=trusted_keys(trail, trusted), anchor=anchor)
