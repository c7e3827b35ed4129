"""authgate.aws: clients on one botocore session, its data loader and the one-time gc.freeze.

The loader and the freeze lean on botocore's internals (docs/decisions.md, "Measured
shortcuts"): these tests fail when a botocore upgrade changes what they rely on, so the shortcut
is mended or dropped rather than silently doing nothing.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator

import botocore.loaders
import botocore.session
import pytest

from authgate import aws, caches


@pytest.fixture
def listdir_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every directory listing made while the test runs (botocore lists its data with os.listdir)."""
    calls: list[str] = []
    real = os.listdir

    def counting(path: str = ".") -> list[str]:
        calls.append(str(path))
        return real(path)

    monkeypatch.setattr(os, "listdir", counting)
    yield calls


def test_the_session_knows_only_the_services_authgate_builds() -> None:
    caches.reset()
    assert aws._session().get_available_services() == ["dynamodb", "secretsmanager", "kms", "sesv2", "sqs"]
    # The loader is still botocore's: everything but the service list comes from its data.
    assert isinstance(aws._session().get_component("data_loader"), botocore.loaders.Loader)


def test_building_a_client_does_not_list_every_bundled_service(listdir_calls: list[str]) -> None:
    caches.reset()
    aws.dynamodb()
    ours = len(listdir_calls)
    listdir_calls.clear()
    botocore.session.get_session().create_client("dynamodb", region_name="us-east-1")
    plain = len(listdir_calls)
    # botocore as shipped lists ~400 model directories for one client; with the loader a handful.
    # If botocore stops asking the loader (the shortcut is dead) or asks it elsewhere (it no
    # longer works), one side of this fails.
    assert ours <= 10, f"authgate's session listed {ours} directories"
    assert plain >= 100, f"plain botocore listed only {plain} directories: is the loader still needed?"


def test_every_client_authgate_builds_is_one_the_loader_knows() -> None:
    caches.reset()
    assert {c.meta.service_model.service_name for c in (aws.dynamodb(), aws.secretsmanager(), aws.kms(),
                                                             aws.sesv2(), aws.sqs())} == set(
        aws._SERVICES)


def test_the_first_clients_freeze_what_was_loaded_and_later_ones_do_not() -> None:
    caches.reset()
    aws.dynamodb()
    assert gc.get_freeze_count() > 0
    frozen = len(aws._FROZEN)
    assert frozen <= len(aws._SERVICES)
    for _ in range(3):
        caches.reset()
        aws.dynamodb()
    # Bounded: a process that rebuilds clients (tests, the emulator) must not freeze its garbage for good.
    assert len(aws._FROZEN) <= len(aws._SERVICES)
