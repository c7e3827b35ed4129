"""scripts/check_artifacts.py: the check CI runs on `sam build`'s output, shown to fail on each defect."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("check_artifacts", ROOT / "scripts" / "check_artifacts.py")
assert _spec is not None and _spec.loader is not None
check_artifacts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_artifacts)


def _build(tmp_path: Path) -> Path:
    """A build tree shaped like .aws-sam/build with a clean layer and one function."""
    site = tmp_path / "AuthgateLayer" / "python"
    shutil.copytree(check_artifacts.RUNTIME, site / "authgate",
                    ignore=shutil.ignore_patterns("__pycache__"))
    info = site / "jmespath-1.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "RECORD").write_text("jmespath/__init__.py,sha256=x,1\n../../bin/x,sha256=y,1\n")
    (site / "jmespath").mkdir()
    (site / "jmespath" / "__init__.py").write_text("")
    function = tmp_path / "TokenFunction"
    function.mkdir()
    (function / "app.py").write_text("handler = None\n")
    return tmp_path


def _run(build: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = check_artifacts.main(["check_artifacts", str(build)])
    captured = capsys.readouterr()
    return status, captured.err


def test_a_clean_build_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(_build(tmp_path), capsys) == (0, "")


def test_a_dev_only_module_in_the_layer_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build = _build(tmp_path)
    (build / "AuthgateLayer" / "python" / "moto").mkdir()
    (build / "AuthgateLayer" / "python" / "moto" / "__init__.py").write_text("")
    status, err = _run(build, capsys)
    assert status == 1
    assert "layer: moto belongs to no pinned distribution (a dev-only module?)" in err


def test_the_mcp_sdk_in_the_layer_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The MCP SDK is a dev dependency (the e2e tests' clients and MCP server), never shipped."""
    build = _build(tmp_path)
    site = build / "AuthgateLayer" / "python"
    (site / "mcp-2.3.0.dist-info").mkdir()
    (site / "mcp").mkdir()
    (site / "mcp" / "__init__.py").write_text("")
    status, err = _run(build, capsys)
    assert status == 1
    assert "distribution mcp-2.3.0.dist-info is not pinned" in err
    assert "layer: mcp belongs to no pinned distribution (a dev-only module?)" in err


def test_an_unpinned_distribution_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build = _build(tmp_path)
    (build / "AuthgateLayer" / "python" / "PyYAML-6.0.3.dist-info").mkdir()
    status, err = _run(build, capsys)
    assert status == 1
    assert "distribution PyYAML-6.0.3.dist-info is not pinned" in err


def test_a_tooling_module_inside_authgate_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build = _build(tmp_path)
    local = build / "AuthgateLayer" / "python" / "authgate" / "local"
    local.mkdir()
    (local / "server.py").write_text("")
    status, err = _run(build, capsys)
    assert status == 1
    assert "layer: authgate/local/server.py is not part of the runtime package" in err


@pytest.mark.parametrize("where", ["AuthgateLayer/python/authgate/settings.pyc", "TokenFunction/app.py"])
def test_a_seed_secret_anywhere_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str) -> None:
    build = _build(tmp_path)
    secret = min(check_artifacts.seed_secrets(check_artifacts.SEEDS))
    target = build / where
    target.write_bytes(b"\x00prefix" + secret.encode() + b"suffix")
    status, err = _run(build, capsys)
    assert status == 1
    assert f"holds the seed secret {secret[:4]}" in err


def test_a_function_shipping_more_than_its_handler_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build = _build(tmp_path)
    (build / "TokenFunction" / "demo_seed.json").write_text("{}")
    status, err = _run(build, capsys)
    assert status == 1
    assert "function TokenFunction: ships demo_seed.json (only app.py belongs here)" in err


def test_the_seed_secrets_include_every_demo_credential() -> None:
    secrets = check_artifacts.seed_secrets(check_artifacts.SEEDS)
    assert {"demo-web-secret", "alice-password", "demo-api-key", "staging-web-secret", "bob-password",
            "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "democorp-sso-secret", "olivia-password",
            "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"} <= secrets


def test_no_build_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check_artifacts.main(["check_artifacts", str(tmp_path)]) == 2
    assert "no built layer" in capsys.readouterr().err


def test_the_demo_fapi_private_key_is_looked_for_and_a_planted_one_fails(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """demo-fapi's private JWK (private_key_jwt) is a demo credential like the secrets: local only."""
    import json

    seed = json.loads((check_artifacts.ROOT / "cli/authgate_cli/local/demo_seed.json").read_text())
    (fapi,) = [c for c in seed["clients"] if c["client_id"] == "demo-fapi"]
    private_d = fapi["private_jwk"]["d"]
    assert private_d in check_artifacts.seed_secrets(check_artifacts.SEEDS)
    build = _build(tmp_path)
    assert _run(build, capsys)[0] == 0
    (build / "AuthgateLayer" / "python" / "authgate" / "demo_key.json").write_text(
        json.dumps({"keys": [fapi["private_jwk"]]}))
    status, err = _run(build, capsys)
    assert status == 1 and f"holds the seed secret {private_d[:4]}" in err
