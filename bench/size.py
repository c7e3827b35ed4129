"""Deployment size of each function: its code plus the layer, as Lambda (python3.12, arm64) gets it.

The layer is what `sam build` makes of layers/authgate/ (its Makefile): the requirements
installed for the Lambda target (`pip install --target --platform manylinux2014_aarch64
--only-binary=:all: --python-version 3.12`) plus the authgate package, all with compiled
bytecode. The install is cached in .bench-cache/ keyed by the requirements file, so a rerun
costs little. Sizes are unzipped
bytes (Lambda's 250 MB limit is on these) and zipped bytes (what is uploaded).
"""

from __future__ import annotations

import hashlib
import io
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENTS = ROOT / "layers" / "authgate" / "requirements.txt"
CACHE = ROOT / ".bench-cache"
SKIP = (".egg-info",)


def _files(base: Path, skip: tuple[str, ...]) -> list[Path]:
    return sorted(p for p in base.rglob("*") if p.is_file() and not any(s in str(p) for s in skip))


def measure_tree(base: Path, prefix: str = "", skip: tuple[str, ...] = SKIP) -> tuple[int, int]:
    """(unzipped bytes, zipped bytes) of the files under `base`."""
    buffer = io.BytesIO()
    unzipped = 0
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in _files(base, skip):
            unzipped += path.stat().st_size
            archive.write(path, prefix + str(path.relative_to(base)))
    return unzipped, len(buffer.getvalue())


def requirements_dir() -> Path:
    """The layer's requirements installed for the Lambda target (cached)."""
    key = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()[:16]
    target = CACHE / f"layer-py312-arm64-{key}"
    if not (target / ".complete").exists():
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "--no-compile", "--target", str(target), "--platform", "manylinux2014_aarch64",
                        "--implementation", "cp", "--python-version", "3.12", "--only-binary=:all:",
                        "-r", str(REQUIREMENTS)], check=True, stderr=subprocess.DEVNULL)
        (target / ".complete").touch()
    return target


def _compiled(source: Path, into: Path) -> Path:
    """A copy of `source` with bytecode, as layers/authgate/Makefile ships it."""
    shutil.copytree(source, into, ignore=shutil.ignore_patterns("__pycache__", ".complete"))
    # Lambda's python3.12 when this machine has it (a pyenv shim may exist without it), else ours:
    # bytecode sizes barely differ between the two.
    for python in (shutil.which("python3.12"), sys.executable):
        if python and subprocess.run([python, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode",
                                      "unchecked-hash", str(into)], check=False, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL).returncode == 0:
            return into
    raise RuntimeError(f"could not compile {source} to bytecode")


def measure(functions: list[str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="authgate-size-") as tmp:
        deps_unzipped, deps_zipped = measure_tree(_compiled(requirements_dir(), Path(tmp) / "deps"), "python/")
        pkg_unzipped, pkg_zipped = measure_tree(
            _compiled(ROOT / "layers" / "authgate" / "authgate", Path(tmp) / "authgate"), "python/authgate/")
    layer = {"unzipped_bytes": deps_unzipped + pkg_unzipped, "zipped_bytes": deps_zipped + pkg_zipped,
             "requirements_unzipped_bytes": deps_unzipped, "authgate_unzipped_bytes": pkg_unzipped}
    result: dict[str, Any] = {"layer": layer, "functions": {}}
    for name in functions:
        # sam build copies a function's sources; local __pycache__ folders are not shipped.
        code_unzipped, code_zipped = measure_tree(ROOT / "functions" / name, skip=SKIP + ("__pycache__",))
        result["functions"][name] = {
            "code_unzipped_bytes": code_unzipped, "code_zipped_bytes": code_zipped,
            "total_unzipped_bytes": code_unzipped + layer["unzipped_bytes"],
            "total_zipped_bytes": code_zipped + layer["zipped_bytes"],
        }
    return result
