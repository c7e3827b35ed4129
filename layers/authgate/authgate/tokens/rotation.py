"""Signing-key lifecycle next -> current -> previous -> retired (RFC 7517), under the overlap rule.

One lifecycle per algorithm the stack signs with: the access tokens' (SigningAlgorithm) and RS256
for ID and logout tokens when that is another (OIDC Discovery 1.0 3: RS256 is always offered).

`rotate(now)` is safe at any moment and any number of times; the rule and its times:
docs/tokens-and-keys.md ("Rotation and the overlap rule").
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from authgate import clock
from authgate.settings import get_settings
from authgate.stores.signing_keys import (
    CURRENT,
    NEXT,
    PREVIOUS,
    RETIRED,
    KeyRecord,
    KeyRing,
    KeyStore,
)
from authgate.tokens.backends import backend
from authgate.tokens.current_signer import SIGNER_CACHE_SECONDS, signing_cache

# Retired key records stay readable (for audit, `authgate keys list`) this long, then TTL.
RETIRED_RECORD_SECONDS = 30 * 24 * 3600


def publish_lead() -> int:
    """Seconds a key is public before it signs: the JWKS cache lifetime plus the clock leeway."""
    s = get_settings()
    return s.jwks_max_age + s.leeway


def retention() -> int:
    """Seconds a demoted key stays public: until the last token it signed has expired."""
    s = get_settings()
    return SIGNER_CACHE_SECONDS + s.access_token_ttl + s.leeway


def new_kid(now: int) -> str:
    """Sortable by creation time, unguessable suffix; kids are never reused."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now)) + "-" + secrets.token_hex(4)


@dataclass
class RotationReport:
    # The access-token key's promotion (the stack's SigningAlgorithm); `promotions` lists every algorithm's.
    promoted: str | None = None
    demoted: str | None = None
    created: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    keys: list[KeyRecord] = field(default_factory=list)
    promotions: list[dict[str, str | None]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"promoted": self.promoted, "demoted": self.demoted, "created": self.created,
                "retired": self.retired, "promotions": self.promotions,
                "keys": [{"kid": k.kid, "state": k.state, "alg": k.alg, "backend": k.backend,
                          "activates_at": k.activates_at, "retires_at": k.retires_at} for k in self.keys]}

    @classmethod
    def from_dict(cls, report: dict[str, Any]) -> RotationReport:
        """The report `as_dict` gave (the rotation function's answer to the console); its keys hold what that
        carries: no public JWK, no creation time."""
        return cls(promoted=report["promoted"], demoted=report["demoted"], created=list(report["created"]),
                   retired=list(report["retired"]), promotions=list(report["promotions"]),
                   keys=[KeyRecord(kid=k["kid"], state=k["state"], alg=k["alg"], backend=k["backend"], public_jwk="",
                                   created_at=0, activates_at=int(k["activates_at"]), retires_at=int(k["retires_at"]))
                         for k in report["keys"]])


def signing_algs() -> tuple[str, ...]:
    """The algorithms the stack keeps a key lifecycle for: the access tokens' (SigningAlgorithm),
    then RS256 for ID and logout tokens when that is another (OIDC Discovery 1.0 3)."""
    settings = get_settings()
    return tuple(dict.fromkeys((settings.signing_alg, *settings.id_token_algs)))


def create_key(store: KeyStore, state: str, now: int, activates_at: int,
               ring: KeyRing | None = None, alg: str | None = None) -> tuple[KeyRecord, KeyRing]:
    """Make an `alg` key pair (the access tokens' when not given) in the configured backend and record it
    with its public JWK (beside the published keys `ring`, read now when not given); the record, and the
    published keys after it."""
    settings = get_settings()
    alg = alg or settings.signing_alg
    kid = new_kid(now)
    refs, jwk = backend(settings.signing_backend).create_key(kid, alg)
    record = KeyRecord(kid=kid, state=state, alg=alg, backend=settings.signing_backend,
                       public_jwk=json.dumps(jwk, separators=(",", ":")), created_at=now,
                       activates_at=activates_at, secret_id=refs.get("secret_id", ""),
                       kms_key_id=refs.get("kms_key_id", ""))
    return record, store.create(record, ring)


def rotate(now: int | None = None, store: KeyStore | None = None) -> RotationReport:
    """One step of the lifecycle at time `now`, for each algorithm of `signing_algs()` apart; moves only
    what the overlap rule allows.

    Every step is planned on the published keys as one read saw them (KeyStore.ring) and written
    only if they are still those (a concurrent rotation makes this one fail, KeyStateConflict).
    An algorithm with no key yet starts at once only when no key of any algorithm signs (a new
    stack: nothing was published, so nothing can be invalidated); beside a signing key it starts
    as next, published before it signs. Keys of an algorithm the stack no longer uses step down
    once a key of one it uses signs.
    """
    now = clock.seconds() if now is None else now
    store = store or KeyStore()
    ring = store.ring()
    report = RotationReport()
    algs = signing_algs()
    published = ring.published()
    changes: list[tuple[KeyRecord, KeyRecord]] = []
    retiring = [k for k in published if k.state == PREVIOUS and k.retires_at <= now]
    for key in retiring:
        changes.append((key, key.with_state(RETIRED, expires_at=now + RETIRED_RECORD_SECONDS)))
    starting = [] if ring.current() else [a for a in algs if not [k for k in published if k.alg == a]]
    # Whether a key of an algorithm in use signs after this step (then the others' may step down).
    signs = any(k.state == CURRENT and k.alg in algs for k in published) or bool(starting)
    for alg in algs:
        keys = [k for k in published if k.alg == alg]
        currents = [k for k in keys if k.state == CURRENT]
        nexts = [k for k in keys if k.state == NEXT]
        ready = [k for k in nexts if k.activates_at <= now]
        # With no current key of its own, the access tokens' next key signs at once (it is the only
        # one of that algorithm); another algorithm's waits for its lead (the access tokens' key signs
        # in its stead meanwhile, tokens.current_signer), unless no key at all signs.
        if ready or (nexts and not currents and (alg == algs[0] or not ring.current())):
            incoming = (ready or nexts)[-1]  # oldest ready key (newest first within a state)
            for key in currents:
                changes.append((key, key.with_state(PREVIOUS, retires_at=now + retention())))
            changes.append((incoming, incoming.with_state(CURRENT)))
            report.promotions.append({"alg": alg, "promoted": incoming.kid,
                                      "demoted": currents[0].kid if currents else None})
            signs = True
    if signs:
        for key in (k for k in published if k.alg not in algs):
            if key.state == CURRENT:
                changes.append((key, key.with_state(PREVIOUS, retires_at=now + retention())))
            elif key.state == NEXT:  # never signed: it may leave at once
                changes.append((key, key.with_state(RETIRED, expires_at=now + RETIRED_RECORD_SECONDS)))
                retiring.append(key)
    own = next((p for p in report.promotions if p["alg"] == algs[0]), None)
    if own is not None:
        report.promoted, report.demoted = own["promoted"], own["demoted"]
    # Also with no change: a table without the published keys' item gets it now.
    ring = store.transition(changes, ring)
    for alg in starting:
        # Bootstrap: nothing was ever signed, so nothing can be invalidated by signing at once.
        created, ring = create_key(store, CURRENT, now, activates_at=now, ring=ring, alg=alg)
        report.created.append(created.kid)
    report.retired = [k.kid for k in retiring]
    for key in retiring:
        backend(key.backend).destroy(key)
    for alg in algs:
        if not [k for k in ring.keys if k.state == NEXT and k.alg == alg]:
            created, ring = create_key(store, NEXT, now, activates_at=now + publish_lead(), ring=ring, alg=alg)
            report.created.append(created.kid)
    report.keys = store.all()
    if report.promotions or report.retired:
        signing_cache().clear()
    return report


def ensure_keys(now: int | None = None, store: KeyStore | None = None) -> None:
    """Make sure a current and a next signing key of each algorithm exist; called by the local emulator on start."""
    store = store or KeyStore()
    ring = store.ring()
    states = {(k.alg, k.state) for k in ring.keys}
    if any((alg, state) not in states for alg in signing_algs() for state in (CURRENT, NEXT)):
        rotate(now, store)
    else:
        store.transition([], ring)  # writes the published keys' item if the table has none yet


def destroy_all(now: int | None = None, store: KeyStore | None = None) -> list[str]:
    """Retire every unretired key and schedule deletion of its private key (the stack is deleted).

    Deletion stays recoverable for the backend's window (7 days for secrets and KMS keys).
    """
    now = clock.seconds() if now is None else now
    store = store or KeyStore()
    ring = store.ring()
    live = list(ring.keys)
    store.transition([(k, k.with_state(RETIRED, expires_at=now + RETIRED_RECORD_SECONDS)) for k in live], ring)
    for key in live:
        backend(key.backend).destroy(key)
    signing_cache().clear()
    return [k.kid for k in live]
