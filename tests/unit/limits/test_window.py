from __future__ import annotations

from authgate.limits.window import offset, window_at


def test_an_instant_falls_in_exactly_one_window_and_reset_rounds_up() -> None:
    window = window_at(1000.5, 60)

    assert (window.start, window.end) == (960, 1020)
    assert window.reset_after(1000.5) == 20   # 19.5 s rounded up: never earlier than the reset
    assert window.reset_after(1019.99) == 1


def test_partitions_get_stable_phases_so_resets_are_spread() -> None:
    phases = {offset(f"tenant-{n}", 60) for n in range(50)}

    assert offset("demo", 60) == offset("demo", 60)
    assert len(phases) > 20
    window = window_at(1000.0, 60, "demo")
    assert window.start <= 1000.0 < window.end
    assert (window.start - offset("demo", 60)) % 60 == 0
