"""A charge request validated at the edge; failures are field errors with JSON pointers (RFC 6901).

pydantic's strict-mode rules and error types, written out (docs/decisions.md says why);
tests/unit/charges/test_charge_request.py holds it to pydantic's own results.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from authgate.charges.currencies import is_iso_4217
from authgate.charges.model import MAX_AMOUNT, MAX_DESCRIPTION
from authgate.errors import ApiError, FieldError

INVOICE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
# Unicode's control characters (category Cc: C0, DEL, C1), which no description shown on a page, a receipt or a
# log needs; the admin CLI refuses them in names too.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
REQUIRED = ("amount", "currency")
MEMBERS = ("amount", "currency", "description", "invoice_id")

# Our message for each error type (pydantic's names for them).
MESSAGES = {
    "missing": "is required",
    "extra_forbidden": "is not a member of a charge",
    "int_type": "must be an integer (minor units, e.g. 1050 for 10.50)",
    "string_type": "must be a string",
    "greater_than": "must be greater than 0",
    "less_than_equal": f"must be at most {MAX_AMOUNT}",
    "string_too_long": f"must be at most {MAX_DESCRIPTION} characters",
    "control_character": "must not contain control characters (U+0000-U+001F, U+007F-U+009F)",
    "string_pattern_mismatch": "must be 1-64 letters, digits, '_' or '-'",
    "currency_code": "must be a lower-case ISO 4217 currency code, e.g. usd",
}


class ChargeRequest(NamedTuple):
    """The body of POST /charges, valid."""

    amount: int
    currency: str
    description: str | None = None
    invoice_id: str | None = None

    def canonical(self) -> dict[str, Any]:
        """The request as compared for idempotency: unset optional members dropped."""
        return {name: value for name, value in self._asdict().items() if value is not None}


def _error(name: str, value: Any) -> str | None:
    """The error type of member `name` holding `value`, or None when it is valid."""
    if name == "amount":
        if type(value) is not int:  # strict: bool is an int subclass, and is refused too
            return "int_type"
        return "greater_than" if value <= 0 else "less_than_equal" if value > MAX_AMOUNT else None
    if value is None and name in ("description", "invoice_id"):
        return None
    if type(value) is not str:
        return "string_type"
    if name == "currency":
        return None if is_iso_4217(value) else "currency_code"
    if name == "description":
        return ("string_too_long" if len(value) > MAX_DESCRIPTION
                else "control_character" if CONTROL.search(value) else None)
    return None if INVOICE_ID.fullmatch(value) else "string_pattern_mismatch"


def pointer(location: tuple[int | str, ...]) -> str:
    """RFC 6901 JSON pointer of a member's location."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in location)


def field_errors(body: dict[str, Any]) -> tuple[FieldError, ...]:
    """Every offending member: the schema's members in order, then unknown ones in body order."""
    errors = []
    for name in MEMBERS:
        kind = ("missing" if name in REQUIRED else None) if name not in body else _error(name, body[name])
        if kind is not None:
            errors.append(FieldError(pointer((name,)), MESSAGES[kind]))
    errors += [FieldError(pointer((name,)), MESSAGES["extra_forbidden"]) for name in body if name not in MEMBERS]
    return tuple(errors)


def parse_charge_request(body: dict[str, Any]) -> ChargeRequest:
    """A valid ChargeRequest, or 422 validation_failed listing every offending member."""
    errors = field_errors(body)
    if errors:
        # The pointers are in the detail too, for shapes that carry no errors[] (legacy A).
        summary = "; ".join(f"{e.pointer or '/'} {e.message}" for e in errors)
        raise ApiError("validation_failed", f"The charge request is not valid: {summary}.", field_errors=errors)
    return ChargeRequest(amount=body["amount"], currency=body["currency"], description=body.get("description"),
                         invoice_id=body.get("invoice_id"))
