"""The signing-key lifecycle by hand: what `authgate keys` and the console's keys pages both call.

`keys()` every key record, newest first; `key(kid)` one (None for a kid the stack does not have); `rotate_now()`
one lifecycle step now, exactly what the EventBridge schedule runs (authgate.tokens.rotation.rotate: it moves only
what the overlap rule allows, so it is safe at any time), run in this process with the caller's own credentials
(`authgate keys rotate`); `rotate_by_function()` the same step run by the rotation function, which the console asks
(authgate.tokens.rotation_request: on a KMS stage only that function's role may read and retire the keys). Both say
it in the same sentences. A key is shown by its record and public JWK, never by where its private half is kept.
"""

from __future__ import annotations

from typing import NamedTuple

from authgate.stores.signing_keys import NEXT, KeyRecord
from authgate.tokens.rotation import RotationReport


def keys() -> list[KeyRecord]:
    from authgate.stores.signing_keys import KeyStore

    return KeyStore().all()


def key(kid: str) -> KeyRecord | None:
    from authgate.stores.signing_keys import KeyStore

    return KeyStore().get(kid) if not kid.startswith("#") else None  # "#...": RING_KID, stores.saml_sp_keys


class Rotated(NamedTuple):
    """One step's report, and what it did in sentences (what moved; a next key waiting, and until when)."""

    report: RotationReport
    said: tuple[str, ...]


def rotate_now() -> Rotated:
    """One lifecycle step now, in this process; says what moved and, if nothing could, why."""
    from authgate.tokens.rotation import rotate

    return _told(rotate())


def rotate_by_function() -> Rotated:
    """One lifecycle step now, run by the rotation function (RotationUnanswered when it gives no report)."""
    from authgate.tokens.rotation_request import ask

    return _told(ask())


def _told(report: RotationReport) -> Rotated:
    from authgate import clock

    said = [f"promoted {step['promoted']} ({step['alg']}) to current; {step['demoted'] or 'no key'} is now previous"
            for step in report.promotions]
    said += [f"created {kid}" for kid in report.created]
    said += [f"retired {kid} (every token it signed has expired)" for kid in report.retired]
    waiting = [k for k in report.keys if k.state == NEXT and k.activates_at > clock.seconds()]
    if not report.promotions and waiting:
        said.append(f"next key {waiting[0].kid} is published but may not sign before {clock.iso(waiting[0].activates_at)} "
                    "(JWKS max-age + leeway after publication); run `authgate keys rotate` again after that")
    return Rotated(report, tuple(said))

