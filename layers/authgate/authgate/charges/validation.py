"""Validates a charge request at the edge with pydantic; failures become field errors with JSON pointers.

Messages are ours, per pydantic error type, so clients never see pydantic's wording (which
changes between versions) and every error shape carries the same pointer (RFC 6901).
"""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
)
from pydantic_core import PydanticCustomError

from authgate.charges.currencies import is_iso_4217
from authgate.charges.model import MAX_AMOUNT, MAX_DESCRIPTION
from authgate.errors import ApiError, FieldError

INVOICE_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"


class ChargeRequest(BaseModel):
    """The body of POST /charges. Strict: "100", 100.0 and true are not integers."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    amount: StrictInt = Field(gt=0, le=MAX_AMOUNT)
    currency: StrictStr
    description: StrictStr | None = Field(default=None, max_length=MAX_DESCRIPTION)
    invoice_id: StrictStr | None = Field(default=None, pattern=INVOICE_ID_PATTERN)

    @field_validator("currency")
    @classmethod
    def _iso_4217(cls, value: str) -> str:
        if not is_iso_4217(value):
            raise PydanticCustomError("currency_code", "must be a lower-case ISO 4217 currency code, e.g. usd")
        return value

    def canonical(self) -> dict[str, Any]:
        """The request as compared for idempotency: unset optional members dropped."""
        return self.model_dump(exclude_none=True)


# Our message for each pydantic error type we can meet; anything else gets a generic one.
_MESSAGES = {
    "missing": "is required",
    "extra_forbidden": "is not a member of a charge",
    "int_type": "must be an integer (minor units, e.g. 1050 for 10.50)",
    "string_type": "must be a string",
    "greater_than": "must be greater than 0",
    "less_than_equal": f"must be at most {MAX_AMOUNT}",
    "string_too_long": f"must be at most {MAX_DESCRIPTION} characters",
    "string_pattern_mismatch": "must be 1-64 letters, digits, '_' or '-'",
    "model_type": "must be a JSON object",
}


def pointer(location: tuple[int | str, ...]) -> str:
    """RFC 6901 JSON pointer of a pydantic error location."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in location)


def field_errors(error: ValidationError) -> tuple[FieldError, ...]:
    out = []
    for item in error.errors(include_url=False, include_input=False):
        kind = item["type"]
        # Custom errors carry our own message; built-in ones are mapped by type.
        message = item["msg"] if kind == "currency_code" else _MESSAGES.get(kind, "is not valid")
        out.append(FieldError(pointer(item["loc"]), message))
    return tuple(out)


def parse_charge_request(body: dict[str, Any]) -> ChargeRequest:
    """A valid ChargeRequest, or 422 validation_failed listing every offending member."""
    try:
        return ChargeRequest.model_validate(body)
    except ValidationError as exc:
        errors = field_errors(exc)
        # The pointers are in the detail too, for shapes that carry no errors[] (legacy A).
        summary = "; ".join(f"{e.pointer or '/'} {e.message}" for e in errors)
        raise ApiError("validation_failed", f"The charge request is not valid: {summary}.",
                       field_errors=errors) from None
