"""SnapStart: two execution environments restored from one snapshot never share a generated value.

A snapshot is played with fork: the token function is initialised as a SnapStart init does it
(AWS_LAMBDA_INITIALIZATION_TYPE=snap-start, AWS's snapshot_restore_py registry present), then
two children are forked from that state. fork is not a restore in one respect: CPython reseeds
`random` in a forked child, a restored microVM does not; each child therefore puts back the
snapshot's `random` state first. Then it does what Lambda's runtime does on restore (run the
after-restore hooks registered during init) and serves a request. What each copy generated
(the token's jti, a random draw as botocore's retry jitter makes, an id) must differ.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import random
import sys
import traceback
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from authgate_cli.local import template
from tests.functional.token_support import TokenClient, body_of


def init(function: str, monkeypatch: pytest.MonkeyPatch,
         kind: str = "snap-start") -> Callable[[dict[str, Any], Any], Any]:
    """functions/<function>/app.py imported afresh, as Lambda's init of kind `kind` runs it."""
    import snapshot_restore_py

    monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", kind)
    monkeypatch.setattr(snapshot_restore_py, "_after_restore_registry", [])
    for name in ("authgate.oauth.authorization.par", "authgate.oauth.token.introspection"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    path = template.function_dir(function) / "app.py"
    spec = importlib.util.spec_from_file_location(f"{kind}_{function}_app", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.handler  # type: ignore[no-any-return]


def restored_copy(handler: Callable[[dict[str, Any], Any], Any], snapshot_random: Any) -> dict[str, Any]:
    """In a forked child: restore as Lambda does, serve one token request, report what it made."""
    import snapshot_restore_py

    random.setstate(snapshot_random)  # undo CPython's at-fork reseed: a restore has none
    for hook, args, kwargs in snapshot_restore_py.get_after_restore():
        hook(*args, **kwargs)
    result = TokenClient(lambda _f, event: handler(event, None)).client_credentials()
    token = body_of(result)["access_token"]
    payload = token.split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    return {"status": result["statusCode"], "jti": claims["jti"], "random": random.getrandbits(64),
            "uuid": uuid.uuid4().hex}


def fork_copies(handler: Callable[[dict[str, Any], Any], Any], copies: int = 2) -> list[dict[str, Any]]:
    snapshot_random = random.getstate()
    out = []
    for _ in range(copies):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the restored copy
            os.close(read)
            try:
                report: dict[str, Any] = restored_copy(handler, snapshot_random)
            except BaseException:  # noqa: BLE001 - the parent must hear of it, never hang
                report = {"error": traceback.format_exc()}
            with os.fdopen(write, "w") as pipe:
                pipe.write(json.dumps(report))
            os._exit(0)
        os.close(write)
        with os.fdopen(read) as pipe:
            out.append(json.loads(pipe.read() or "{}"))
        os.waitpid(pid, 0)
    return out


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_two_copies_restored_from_one_snapshot_share_no_generated_value(demo: Any,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import snapshot_restore_py

    from authgate import snapstart

    handler = init("TokenFunction", monkeypatch)
    # Init registered the restore hook, and primed the routes later requests would import.
    assert [hook for hook, _, _ in snapshot_restore_py.get_after_restore()] == [snapstart.after_restore]
    assert {"authgate.oauth.authorization.par", "authgate.oauth.token.introspection"} <= set(sys.modules)

    first, second = fork_copies(handler)
    assert "error" not in first and "error" not in second, (first, second)
    assert first["status"] == second["status"] == 200
    for generated in ("jti", "random", "uuid"):
        assert first[generated] != second[generated], generated


def test_an_on_demand_init_primes_and_registers_nothing(demo: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import snapshot_restore_py

    init("TokenFunction", monkeypatch, kind="on-demand")
    assert snapshot_restore_py.get_after_restore() == []
    assert "authgate.oauth.token.introspection" not in sys.modules  # loaded on its route's first request
