"""The two distributions: `authgate` (what Lambda runs) and `authgate-cli` (the tools)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[3]
RUNTIME = ROOT / "layers" / "authgate"


def _pins() -> dict[str, str]:
    pins = {}
    for line in (RUNTIME / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            req = Requirement(line)
            (spec,) = req.specifier
            assert spec.operator == "==", f"{line}: the layer's requirements are exact pins"
            pins[req.name.lower().replace("_", "-")] = spec.version
    return pins


def test_every_runtime_dependency_is_pinned_for_the_layer_within_its_range() -> None:
    project = tomllib.loads((RUNTIME / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = _pins()
    for raw in project["dependencies"]:
        req = Requirement(raw)
        name = req.name.lower().replace("_", "-")
        if name in ("boto3", "botocore"):
            assert name not in pins, "boto3/botocore come with the Lambda runtime"
            continue
        assert name in pins, f"{name} is a runtime dependency but not pinned in requirements.txt"
        assert req.specifier.contains(pins[name]), f"{name}=={pins[name]} is outside {req.specifier}"


def test_the_runtime_package_never_imports_the_tools_or_dev_libraries() -> None:
    offenders = []
    for path in sorted((RUNTIME / "authgate").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            words = line.strip().split()
            if words[:1] in (["import"], ["from"]) and len(words) > 1 and words[1].split(".")[0] in (
                    "authgate_cli", "moto", "yaml", "pytest", "requests"):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_importing_every_runtime_module_loads_no_tool_or_dev_library() -> None:
    code = (
        "import importlib, pkgutil, sys, authgate\n"
        "for m in pkgutil.walk_packages(authgate.__path__, 'authgate.'):\n"
        "    importlib.import_module(m.name)\n"
        "print(sorted(n for n in ('authgate_cli', 'moto', 'yaml', 'pytest', 'requests') if n in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_function_loads_the_saml_libraries_when_it_starts() -> None:
    """lxml and signxml cost a SAML sign-in ~40 ms to import: only that sign-in may load them (issue 39's budget)."""
    code = (
        "import importlib.util, pathlib, sys\n"
        "for app in sorted(pathlib.Path('functions').glob('*/app.py')):\n"
        "    spec = importlib.util.spec_from_file_location(f'{app.parent.name}_app', app)\n"
        "    spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "    print(app.parent.name, sorted(n for n in ('lxml', 'signxml', 'authgate.federation.saml') if n in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={**os.environ, "AWS_DEFAULT_REGION": "us-east-1"})
    functions = sorted(p.parent.name for p in (ROOT / "functions").glob("*/app.py"))
    assert out.stdout.splitlines() == [f"{name} []" for name in functions]
