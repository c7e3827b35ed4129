"""The authorization_details parameter (RFC 9396 2): a JSON array of objects, each with a `type`.

Parsed strictly (authgate.strict_json: no duplicate members) and bounded: at most MAX_TEXT
characters and MAX_ENTRIES objects. The common data fields of RFC 9396 2.2 (locations, actions,
datatypes, privileges: arrays of strings; identifier: a string) are checked whatever the type;
each type then has its own rules (authorization_details.charge for authgate's `charge`,
authorization_details.registered for a registered resource's JSON Schema). What a grant keeps is
the canonical JSON text of the checked details (`text`), so codes, refresh families and sealed
forms hold one string.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from authgate import strict_json
from authgate.authorization_details import charge, registered
from authgate.authorization_details.errors import DetailsInvalid

Details = tuple[dict[str, Any], ...]

MAX_TEXT = 8192
MAX_ENTRIES = 8
# A type is a string (RFC 9396 2); here a short name or URI of visible ASCII without spaces.
TYPE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/#-]{0,127}")
# RFC 9396 2.2: the common data fields and their JSON types.
STRING_ARRAYS = ("locations", "actions", "datatypes", "privileges")


def parse(raw: str) -> Details:
    """The details a request sends (RFC 9396 2), checked for shape only; DetailsInvalid otherwise."""
    if len(raw) > MAX_TEXT:
        raise DetailsInvalid(f"authorization_details is longer than {MAX_TEXT} characters.")
    try:
        value = strict_json.loads(raw)
    except ValueError as exc:
        raise DetailsInvalid(f"authorization_details is not strict JSON: {str(exc)[:120]}.") from None
    if not isinstance(value, list) or not value:
        raise DetailsInvalid("authorization_details must be a non-empty JSON array of objects (RFC 9396 2).")
    if len(value) > MAX_ENTRIES:
        raise DetailsInvalid(f"authorization_details holds more than {MAX_ENTRIES} objects.")
    for index, entry in enumerate(value):
        _common(index, entry)
    return tuple(value)


def _common(index: int, entry: Any) -> None:
    """RFC 9396 2: an object with a string `type`; 2.2: the common fields' types."""
    where = f"authorization_details[{index}]"
    if not isinstance(entry, dict):
        raise DetailsInvalid(f"{where} is not a JSON object (RFC 9396 2).")
    kind = entry.get("type")
    if not isinstance(kind, str):
        raise DetailsInvalid(f"{where} has no type: every object names its type (RFC 9396 2).")
    if not TYPE_NAME.fullmatch(kind):
        raise DetailsInvalid(f"{where}.type is not a type name (at most 128 visible characters, no spaces).")
    for name in STRING_ARRAYS:
        if name in entry and not (isinstance(entry[name], list) and all(isinstance(v, str) for v in entry[name])):
            raise DetailsInvalid(f"{where}.{name} must be an array of strings (RFC 9396 2.2).")
    if "identifier" in entry and not isinstance(entry["identifier"], str):
        raise DetailsInvalid(f"{where}.identifier must be a string (RFC 9396 2.2).")


def checked(details: Details, *, charges_api: bool, schemas: Mapping[str, Any],
            currencies: frozenset[str] | None, charges_url: str) -> Details:
    """Each object valid for its type, as the grant will hold it (defaults filled in); DetailsInvalid otherwise.

    `charges_api`: the token is for the charges API, whose one type is `charge`; otherwise `schemas`
    are the registered resource's own types (RFC 9396 2: the resource decides its types). At most one
    `charge` object: its max_charges is the grant's one budget (docs/payments-consent.md)."""
    out = []
    for index, entry in enumerate(details):
        kind, where = entry["type"], f"authorization_details[{index}]"
        if charges_api and kind == charge.TYPE:
            out.append(charge.normalized(entry, where, currencies, charges_url))
        elif not charges_api and kind in schemas:
            out.append(registered.validated(entry, where, schemas[kind]))
        else:
            raise DetailsInvalid(f"{where}.type {kind[:64]!r} is not a type the requested resource accepts"
                                 + (f" (the charges API's is {charge.TYPE})." if charges_api else
                                    " (authgate resources update --authorization-details-type)."))
    if sum(1 for entry in out if entry["type"] == charge.TYPE) > 1:
        raise DetailsInvalid("authorization_details holds more than one charge object: ask for one payment "
                             "(its max_charges says how many charges) per authorization.")
    return tuple(out)


def narrowed(requested: Details, granted: Details) -> Details:
    """RFC 9396 6.2: the details a token request asks for, when each is within one the grant holds (a charge: the
    same currency, no more amount, charges or actions; another type: exactly a granted object); DetailsInvalid
    otherwise."""
    for index, entry in enumerate(requested):
        if not any(_within(entry, held) for held in granted):
            raise DetailsInvalid(f"authorization_details[{index}] is not within the details of this grant "
                                 "(RFC 9396 6.2: a token request may only narrow them).")
    return requested


def _within(entry: dict[str, Any], held: dict[str, Any]) -> bool:
    if entry["type"] != held["type"]:
        return False
    if entry["type"] == charge.TYPE:
        return charge.within(entry, held)
    return entry == held


def text(details: Details | None) -> str | None:
    """The canonical JSON a grant keeps (None: no details)."""
    return json.dumps(list(details), separators=(",", ":"), sort_keys=True, ensure_ascii=False) if details else None


def of_text(stored: str | None) -> Details | None:
    """The details a grant keeps, from their canonical JSON (written by `text`, so trusted)."""
    return tuple(json.loads(stored)) if stored else None


def described(details: Details) -> tuple[str, ...]:
    """Each object in plain words, as the consent page shows it (never raw JSON)."""
    return tuple(charge.describe(entry) if entry["type"] == charge.TYPE else registered.describe(entry)
                 for entry in details)
