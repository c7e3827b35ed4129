"""`authgate keys rotate | list` output against moto's AWS."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from authgate.clock import ManualClock
from authgate_cli.admin.keys import list_keys, rotate_keys


def test_rotate_bootstraps_then_explains_why_the_next_key_waits(aws: None, clock: ManualClock) -> None:
    assert clock.value == 1_750_000_000
    out = io.StringIO()
    assert rotate_keys(out) == 0
    text = out.getvalue()
    assert text.count("created ") == 2  # bootstrap: a current key and a next key
    out = io.StringIO()
    rotate_keys(out)
    assert "may not sign before 2025-06-15T15:13:40Z" in out.getvalue()
    clock.advance(420)
    out = io.StringIO()
    rotate_keys(out, as_json=True)
    report = json.loads(out.getvalue())
    assert report["promoted"] and report["demoted"] and len(report["created"]) == 1
    out = io.StringIO()
    list_keys(out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["KID", "STATE", "ALG", "BACKEND", "SIGNS", "FROM", "UNPUBLISHED", "FROM"]
    assert sorted(line.split()[1] for line in lines[1:]) == ["current", "next", "previous"]


def test_show_prints_one_key_and_its_public_jwk(aws: None, clock: ManualClock,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from authgate.stores.signing_keys import KeyStore
    from authgate_cli.admin.keys import show_key

    assert rotate_keys(io.StringIO()) == 0
    current = next(k for k in KeyStore().all() if k.state == "current")
    out = io.StringIO()
    assert show_key(current.kid, out, as_json=True) == 0
    assert json.loads(out.getvalue()) == {
        "kid": current.kid, "state": "current", "alg": current.alg, "backend": "local", "created_at": clock.value,
        "activates_at": clock.value, "retires_at": 0, "expires_at": 0, "public_jwk": json.loads(current.public_jwk)}
    assert "secret_id" not in out.getvalue() and '"d"' not in out.getvalue()
    out = io.StringIO()
    assert show_key(current.kid, out) == 0
    # The clock fixture's START, 1_750_000_000, is 2025-06-15T15:06:40Z; a time never set is "-".
    jwk = json.dumps(json.loads(current.public_jwk), separators=(",", ":"))
    assert out.getvalue().splitlines() == [
        f"kid:          {current.kid}", "state:        current", f"alg:          {current.alg}", "backend:      local",
        "created_at:   2025-06-15T15:06:40Z", "activates_at: 2025-06-15T15:06:40Z", "retires_at:   -",
        "expires_at:   -", f"public_jwk:   {jwk}"]
    for kid in ("nosuch", "#published"):
        assert show_key(kid, io.StringIO()) == 2
        assert capsys.readouterr().err == f"authgate keys: no signing key {kid!r} (see `authgate keys list`)\n"


def test_on_a_deployed_stage_the_rotation_function_runs_the_step_or_the_command_says_it_did_not_answer(
        aws: None, clock: ManualClock, monkeypatch: pytest.MonkeyPatch, log_lines: Any,
        capsys: pytest.CaptureFixture[str]) -> None:
    from authgate import caches

    # A deployed stage (`--stack-name`, authgate_cli.admin.target), its resources named as this world's (tests/deploy).
    monkeypatch.setenv("AUTHGATE_STAGE", "staging")
    monkeypatch.setenv("AUTHGATE_STACK_NAME", "local")
    caches.reset()
    out = io.StringIO()
    assert rotate_keys(out) == 0
    assert out.getvalue().count("created ") == 2
    # Lambda's Invoke, answered by functions/rotate_keys (authgate_cli.local.lambda_invoke): its log says so.
    assert [line["trigger"] for line in log_lines() if line["message"] == "signing keys rotated"] == ["request"]
    monkeypatch.setenv("AUTHGATE_ROTATE_KEYS_FUNCTION", "authgate-staging-RotateKeysFunction-Gone")
    caches.reset()
    assert rotate_keys(io.StringIO()) == 2
    assert capsys.readouterr().err == (
        "authgate keys: the rotation function did not answer (Invoke authgate-staging-RotateKeysFunction-Gone: "
        "ResourceNotFoundException); see `authgate keys list`, and run the step again if it is still needed\n")
