"""Deployment size of each function: its code plus the layer, as Lambda (python3.12, arm64) gets it.

The layer is what `sam build` makes of layers/authgate/: the requirements installed for the
Lambda target (`pip install --target --platform manylinux2014_aarch64 --only-binary=:all:
--python-version 3.12`, no bytecode) plus the authgate package. The install is cached in
.bench-cache/ keyed by the requirements file, so a rerun costs nothing. Sizes are unzipped
bytes (Lambda's 250 MB limit is on these) and zipped bytes (what is uploaded).
"""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENTS = ROOT / "layers" / "authgate" / "requirements.txt"
CACHE = ROOT / ".bench-cache"
SKIP = ("__pycache__", ".pyc", ".egg-info")


def _files(base: Path) -> list[Path]:
    return sorted(p for p in base.rglob("*") if p.is_file() and not any(s in str(p) for s in SKIP))


def measure_tree(base: Path, prefix: str = "") -> tuple[int, int]:
    """(unzipped bytes, zipped bytes) of the files under `base`."""
    buffer = io.BytesIO()
    unzipped = 0
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in _files(base):
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


def measure(functions: list[str]) -> dict[str, Any]:
    deps_unzipped, deps_zipped = measure_tree(requirements_dir(), "python/")
    pkg_unzipped, pkg_zipped = measure_tree(ROOT / "layers" / "authgate" / "authgate", "python/authgate/")
    layer = {"unzipped_bytes": deps_unzipped + pkg_unzipped, "zipped_bytes": deps_zipped + pkg_zipped,
             "requirements_unzipped_bytes": deps_unzipped, "authgate_unzipped_bytes": pkg_unzipped}
    result: dict[str, Any] = {"layer": layer, "functions": {}}
    for name in functions:
        code_unzipped, code_zipped = measure_tree(ROOT / "functions" / name)
        result["functions"][name] = {
            "code_unzipped_bytes": code_unzipped, "code_zipped_bytes": code_zipped,
            "total_unzipped_bytes": code_unzipped + layer["unzipped_bytes"],
            "total_zipped_bytes": code_zipped + layer["zipped_bytes"],
        }
    return result
