"""limits.quota: one count per partition and fixed window, refused at its quota until the window resets, failing open."""

from __future__ import annotations

import json
from typing import Any

import pytest

from authgate.clock import ManualClock
from authgate.limits.quota import Quota, QuotaSpent
from authgate.limits.window import window_at
from tests.faults.injection import client_error

WINDOW = 3600


def test_counts_up_to_the_quota_then_refuses_until_the_window_resets(db: Any, clock: ManualClock,
                                                                     calls: list[str]) -> None:
    window = window_at(clock.value, WINDOW, "register")
    clock.value = window.end + 100  # 100 s into the next window of this phase
    quota = Quota("registration", WINDOW, db)
    for _ in range(3):
        quota.spend("register#a", "registrations", 3, phase="register")
    assert calls == ["UpdateItem"] * 3  # one conditional write each, nothing read
    with pytest.raises(QuotaSpent) as spent:
        quota.spend("register#a", "registrations", 3, phase="register")
    assert spent.value.retry_after == WINDOW - 100
    quota.spend("register#b", "registrations", 3, phase="register")  # another partition: its own count
    clock.advance(WINDOW - 100)
    quota.spend("register#a", "registrations", 3, phase="register")  # a new window


def test_without_a_phase_each_partition_resets_on_its_own(db: Any, clock: ManualClock) -> None:
    quota = Quota("client-metadata-fetch", 60, db)
    for partition in ("cimd-new#x", "cimd-new#y"):
        quota.spend(partition, "fetches", 1)
        with pytest.raises(QuotaSpent) as spent:
            quota.spend(partition, "fetches", 1)
        assert spent.value.retry_after == window_at(clock.value, 60, partition).reset_after(clock.value)


def test_an_unavailable_limits_table_admits_with_a_log_line_and_metric(
        db: Any, clock: ManualClock, inject: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.log_hygiene import LogCapture

    inject("UpdateItem", client_error("ThrottlingException"))
    with LogCapture() as capture:
        Quota("registration", WINDOW, db).spend("register#a", "registrations", 1)
        Quota("registration", WINDOW, db).spend("register#a", "registrations", 1)  # not counted: admitted again
    assert [json.loads(line)["message"] for line in capture.lines] == [
        "rate limiter unavailable; request admitted (fail open)"] * 2
    assert '"limiter":"registration"' in capsys.readouterr().out  # the EMF metric line
