#!/usr/bin/env python3
"""Checks what `sam build` made: the Lambda artifacts hold the product and nothing else.

    python3 scripts/check_artifacts.py [.aws-sam/build]

Lists the layer and every function's code, then fails (exit 1, one line per finding) when:
- the layer holds a distribution that layers/authgate/requirements.txt does not pin, or a
  top-level module no pinned distribution installed (a dev-only module: moto, yaml, pytest,
  authgate_cli, ...);
- the layer's `authgate` package holds a module that is not in the runtime package of this
  checkout (e.g. a stale local emulator or admin module);
- a function's code is more than its handler (functions/<name>/app.py);
- any file (source, bytecode or data) contains a secret from the local seed files (client
  secrets, passwords, API keys, private key material): the demo credentials are local only.

Exit 2 when there is nothing to check (no build). Standard library only: CI runs it with the
system Python right after `make build`.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RUNTIME = ROOT / "layers" / "authgate" / "authgate"
REQUIREMENTS = ROOT / "layers" / "authgate" / "requirements.txt"
SEEDS = sorted((ROOT / "cli" / "authgate_cli" / "local").glob("*seed*.json"))
# Member names whose string values are credentials in a seed file (private JWK members too).
SECRET_MEMBERS = frozenset({"secret", "password", "value", "client_secret", "totp_secret", "d", "p", "q", "dp", "dq",
                            "qi", "k"})
MIN_SECRET_LENGTH = 8  # shorter strings (e.g. a JWK's "e": "AQAB") would match by chance


def canonical(name: str) -> str:
    """PEP 503 normalised distribution name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned() -> set[str]:
    names = set()
    for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.add(canonical(re.split(r"[\[=<>!~;\s]", line, maxsplit=1)[0]))
    return names


def seed_secrets(paths: list[Path]) -> set[str]:
    found: set[str] = set()

    def walk(value: Any, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, str(k))
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str) and key in SECRET_MEMBERS and len(value) >= MIN_SECRET_LENGTH:
            found.add(value)

    for path in paths:
        walk(json.loads(path.read_text(encoding="utf-8")))
    return found


def files(base: Path) -> Iterator[Path]:
    return (p for p in sorted(base.rglob("*")) if p.is_file())


def check_layer(site: Path) -> list[str]:
    problems: list[str] = []
    allowed = pinned()
    owned: set[str] = {"authgate"}
    for info in sorted(site.glob("*.dist-info")):
        dist = canonical(info.name.removesuffix(".dist-info").rsplit("-", 1)[0])
        if dist not in allowed:
            problems.append(f"layer: distribution {info.name} is not pinned in {REQUIREMENTS.relative_to(ROOT)}")
            continue
        record = info / "RECORD"
        for line in record.read_text(encoding="utf-8").splitlines() if record.exists() else []:
            top = line.split(",", 1)[0].split("/", 1)[0]
            owned.add(top.removesuffix(".py"))
    for entry in sorted(site.iterdir()):
        name = entry.name.removesuffix(".py")
        if entry.name.endswith(".dist-info") or entry.name == "__pycache__":
            continue
        if name not in owned:
            problems.append(f"layer: {entry.name} belongs to no pinned distribution (a dev-only module?)")
    shipped = {p.relative_to(site / "authgate").with_suffix("") for p in (site / "authgate").rglob("*.py")}
    source = {p.relative_to(RUNTIME).with_suffix("") for p in RUNTIME.rglob("*.py")}
    for extra in sorted(shipped - source):
        problems.append(f"layer: authgate/{extra}.py is not part of the runtime package")
    for missing in sorted(source - shipped):
        problems.append(f"layer: authgate/{missing}.py is missing")
    return problems


def check_function(code: Path) -> list[str]:
    extra = [p for p in files(code) if p.name != "app.py" and "__pycache__" not in p.parts]
    return [f"function {code.name}: ships {p.relative_to(code)} (only app.py belongs here)" for p in extra]


def check_secrets(base: Path, secrets: set[str]) -> list[str]:
    needles = [(s, s.encode()) for s in sorted(secrets)]
    problems = []
    for path in files(base):
        data = path.read_bytes()
        for text, needle in needles:
            if needle in data:
                problems.append(f"{path.relative_to(base)}: holds the seed secret {text[:4]}… (local only)")
    return problems


def main(argv: list[str]) -> int:
    build = Path(argv[1]) if len(argv) > 1 else ROOT / ".aws-sam" / "build"
    site = build / "AuthgateLayer" / "python"
    if not site.is_dir():
        print(f"check_artifacts: no built layer at {site} (run `make build` first)", file=sys.stderr)
        return 2
    functions = sorted(p for p in build.iterdir() if p.is_dir() and p.name.endswith("Function"))
    if not functions:
        print(f"check_artifacts: no built functions in {build}", file=sys.stderr)
        return 2
    secrets = seed_secrets(SEEDS)
    if not secrets:
        print("check_artifacts: found no seed secrets to look for (seed files moved?)", file=sys.stderr)
        return 2
    problems = check_layer(site) + check_secrets(build, secrets)
    for code in functions:
        problems += check_function(code)
    layer_files = sum(1 for _ in files(site))
    print(f"artifacts: layer {layer_files} files ({', '.join(sorted(p.name for p in site.iterdir() if not p.name.endswith('.dist-info')))}); "
          f"functions {', '.join(f.name for f in functions)}; {len(secrets)} seed secrets looked for")
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)
    if problems:
        print(f"check_artifacts: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
