"""The catalogue of application error codes, loaded from catalogue.json (the published list)."""

from __future__ import annotations

import json
import os
from typing import NamedTuple

from authgate.caches import cached

# Read with open(), not importlib.resources: its import lengthens a cold start, and the
# catalogue always sits beside this module (in the layer as in a checkout).
CATALOGUE_PATH = os.path.join(os.path.dirname(__file__), "catalogue.json")


class CodeInfo(NamedTuple):
    code: str
    status: int
    title: str
    meaning: str


@cached
def catalogue() -> dict[str, CodeInfo]:
    """Every published code, by name."""
    with open(CATALOGUE_PATH, encoding="utf-8") as f:
        raw = json.load(f)
    return {entry["code"]: CodeInfo(**entry) for entry in raw["codes"]}


def lookup(code: str) -> CodeInfo:
    """The catalogue entry of a code; an unknown code is a programming error (and a type error)."""
    try:
        return catalogue()[code]
    except KeyError:
        raise LookupError(f"error code {code!r} is not in errors/catalogue.json") from None
