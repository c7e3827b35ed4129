"""Fixtures of the fuzz targets: the demo stack without users, and a log check for random input."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests import aws_state
from tests.fuzz.handler_calls import ISSUED


@pytest.fixture
def log_hygiene() -> Iterator[Any]:
    """Overrides the suite's: fuzzed requests are random text, so only issued secrets (and the
    demo seed's and the bearer tokens handler_calls.bearer signed) are looked for in the log."""
    from tests.log_hygiene import LogCapture, SecretHarvest, leaks

    harvest = SecretHarvest(requests=False)
    with LogCapture() as capture:
        yield harvest
    found = leaks(capture.lines, harvest.secrets | ISSUED)
    assert not found, f"secrets reached the log: {found}"


@pytest.fixture
def demo(aws: None) -> None:
    """Overrides the suite's: the demo tenants and clients and a signing key, no users (no scrypt hashing)."""
    from authgate.tokens.rotation import ensure_keys
    from authgate_cli.local import loaders
    from authgate_cli.local.seed import DEMO_SEED, read_seed

    def seed() -> None:
        sections = read_seed(DEMO_SEED)
        for section in ("tenants", "clients"):
            loaders.LOADERS[section](sections[section])
        ensure_keys()

    aws_state.seeded("fuzz-demo", seed)
