"""Strict JSON (RFC 8259) for what a client sends: JOSE segments and request bodies alike.

Refused, as ValueError: duplicate member names (RFC 8259 4 leaves them undefined; RFC 7515 5.2
lets a JWS parser reject them), NaN / Infinity and numbers too large for a finite double (RFC
8259 6: not JSON numbers), lone surrogate escapes (RFC 8259 8.2: not Unicode text), and nesting
deep enough to exhaust the parser's recursion (a RecursionError is a client's fault, not a 500).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

# A \uD800-\uDFFF escape: the only way a lone surrogate reaches a str decoded from UTF-8.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class DuplicateMember(ValueError):
    """An object names one member twice."""

    def __init__(self, name: str) -> None:
        super().__init__(f"duplicate member {name!r}")
        self.name = name


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in pairs:
        if name in out:
            raise DuplicateMember(name)
        out[name] = value
    return out


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:20]} is out of range")
    return value


def loads(text: str) -> Any:
    """The JSON value of `text`; json.JSONDecodeError, DuplicateMember or ValueError when it is not strict JSON."""
    try:
        value = json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_float)
    except RecursionError:
        raise ValueError("the JSON value nests too deeply") from None
    if _SURROGATE_ESCAPE.search(text):
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except (UnicodeEncodeError, RecursionError):
            raise ValueError("the JSON text escapes a lone surrogate") from None
    return value
