"""Charge ids: ULID layout, time-ordered so a reverse key query lists newest first."""

from __future__ import annotations

from authgate.charges.model import is_charge_id, new_charge_id


def test_ids_are_valid_unique_and_sort_by_time():
    ids = [new_charge_id(now_ms=1_700_000_000_000 + i) for i in range(200)]
    assert all(is_charge_id(i) for i in ids)
    assert sorted(ids) == ids and len(set(ids)) == 200
    assert len(new_charge_id()) == 29


def test_foreign_strings_are_not_charge_ids():
    for value in ("", "ch_", "ch_" + "0" * 25, "ch_" + "0" * 27, "ch_" + "I" * 26, "xx_" + "0" * 26,
                  "charge-for#abc"):
        assert not is_charge_id(value)
