"""The catalogue of application error codes, loaded from catalogue.json (the published list)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources


@dataclass(frozen=True)
class CodeInfo:
    code: str
    status: int
    title: str
    meaning: str


@lru_cache(maxsize=1)
def catalogue() -> dict[str, CodeInfo]:
    """Every published code, by name."""
    raw = json.loads(resources.files(__package__).joinpath("catalogue.json").read_text("utf-8"))
    return {entry["code"]: CodeInfo(**entry) for entry in raw["codes"]}


def lookup(code: str) -> CodeInfo:
    """The catalogue entry of a code; an unknown code is a programming error."""
    try:
        return catalogue()[code]
    except KeyError:
        raise LookupError(f"error code {code!r} is not in errors/catalogue.json") from None
