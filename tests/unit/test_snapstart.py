"""authgate.snapstart: prime and hook the restore only under a SnapStart init; a restore shares nothing.

AWS's snapshot_restore_py (the package Lambda's Python runtime ships) is the real registry here.
"""

from __future__ import annotations

import random
import sys
from itertools import count

import pytest

from authgate import snapstart
from authgate.caches import cached


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """An empty after-restore registry of the real snapshot_restore_py."""
    import snapshot_restore_py

    empty: list[object] = []
    monkeypatch.setattr(snapshot_restore_py, "_after_restore_registry", empty)
    return empty


@pytest.mark.parametrize("kind", [None, "on-demand", "provisioned-concurrency", "SNAP-START"])
def test_outside_a_snapstart_init_nothing_is_primed_or_registered(monkeypatch: pytest.MonkeyPatch,
                                                                  registry: list[object], kind: str | None) -> None:
    if kind is None:
        monkeypatch.delenv("AWS_LAMBDA_INITIALIZATION_TYPE", raising=False)
    else:
        monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", kind)
    primed: list[bool] = []
    assert snapstart.register(lambda: primed.append(True)) is False
    assert (primed, registry) == ([], [])


def test_a_snapstart_init_primes_once_and_registers_the_restore(monkeypatch: pytest.MonkeyPatch,
                                                                 registry: list[object]) -> None:
    import snapshot_restore_py

    monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", "snap-start")
    primed: list[bool] = []
    assert snapstart.register(lambda: primed.append(True)) is True
    assert primed == [True]
    assert [hook for hook, _, _ in snapshot_restore_py.get_after_restore()] == [snapstart.after_restore]


def test_without_the_runtime_package_nothing_is_primed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", "snap-start")
    monkeypatch.setitem(sys.modules, "snapshot_restore_py", None)  # as outside Lambda's runtime: ImportError
    primed: list[bool] = []
    assert snapstart.register(lambda: primed.append(True)) is False
    assert primed == []


def test_a_restore_reseeds_random() -> None:
    random.seed(1234)
    snapshot = random.getstate()
    in_the_snapshot = random.getrandbits(64)
    random.setstate(snapshot)
    snapstart.after_restore()
    assert random.getrandbits(64) != in_the_snapshot


def test_a_restore_forgets_every_cache() -> None:
    made = count()

    @cached
    def built() -> int:
        return next(made)

    assert (built(), built()) == (0, 0)
    snapstart.after_restore()
    assert built() == 1
