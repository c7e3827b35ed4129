"""authgate's own authorization details type, `charge` (RFC 9396 2): what the charges API may do for the grant.

`{"type": "charge", "actions": ["create"], "amount": 1250, "currency": "usd",
"description": "Order 1042", "max_charges": 1, "locations": ["<issuer>/charges"]}`: at most
`max_charges` charges (default 1, at most MAX_CHARGES) over the whole grant, each of at most
`amount` minor units in `currency`. `actions` (default ["create"]) and `locations` (default: the
charges API) are RFC 9396 2.2's common fields; `locations`, when sent, must be the charges API.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from authgate.authorization_details.errors import DetailsExceeded, DetailsInvalid

TYPE = "charge"
MEMBERS = frozenset({"type", "actions", "amount", "currency", "description", "max_charges", "locations"})
ACTIONS = ("create",)
# The charges API's own bounds (charges.model: MAX_AMOUNT, MAX_DESCRIPTION).
MAX_AMOUNT = 99_999_999
MAX_DESCRIPTION = 500
MAX_CHARGES = 100
CURRENCY = re.compile(r"[a-z]{3}")
# ISO 4217 minor units other than 2, for showing an amount (the charges API takes minor units).
EXPONENTS = {
    **dict.fromkeys(("bif", "clp", "djf", "gnf", "isk", "jpy", "kmf", "krw", "pyg", "rwf", "ugx", "vnd", "vuv",
                     "xaf", "xof", "xpf"), 0),
    **dict.fromkeys(("bhd", "iqd", "jod", "kwd", "lyd", "omr", "tnd"), 3),
}
TIMES = {1: "once", 2: "twice"}


def _integer(entry: dict[str, Any], name: str, where: str, low: int, high: int, default: int | None = None) -> int:
    value = entry.get(name, default)
    if type(value) is not int or not low <= value <= high:  # strict: a bool is not an integer here
        raise DetailsInvalid(f"{where}.{name} must be an integer from {low} to {high}.")
    return value


def normalized(entry: dict[str, Any], where: str, currencies: frozenset[str] | None,
               charges_url: str) -> dict[str, Any]:
    """The charge object as granted, defaults filled in; DetailsInvalid naming the member otherwise.

    `currencies`: the tenant's enabled ones (the charges API takes no other); None when the tenant is not
    known yet (a self-registered client before sign-in), then checked again once it is."""
    unknown = sorted(set(entry) - MEMBERS)
    if unknown:
        raise DetailsInvalid(f"{where}.{unknown[0][:64]} is not a member of a charge.")
    actions = entry.get("actions", list(ACTIONS))
    if not actions or any(action not in ACTIONS for action in actions):
        raise DetailsInvalid(f"{where}.actions may only hold create.")
    amount = _integer(entry, "amount", where, 1, MAX_AMOUNT)
    currency = entry.get("currency")
    if not isinstance(currency, str) or not CURRENCY.fullmatch(currency):
        raise DetailsInvalid(f"{where}.currency must be a lower-case ISO 4217 code, such as usd.")
    if currencies is not None and currency not in currencies:
        raise DetailsInvalid(f"{where}.currency {currency} is not enabled for this account.")
    out: dict[str, Any] = {"type": TYPE, "actions": sorted(set(actions)), "amount": amount, "currency": currency,
                           "max_charges": _integer(entry, "max_charges", where, 1, MAX_CHARGES, 1)}
    description = entry.get("description")
    if description is not None:
        if not isinstance(description, str) or len(description) > MAX_DESCRIPTION:
            raise DetailsInvalid(f"{where}.description must be a string of at most {MAX_DESCRIPTION} characters.")
        out["description"] = description
    if "locations" in entry:
        if not entry["locations"] or any(location.rstrip("/") != charges_url for location in entry["locations"]):
            raise DetailsInvalid(f"{where}.locations may only name the charges API, {charges_url}.")
        out["locations"] = [charges_url]
    return out


def within(entry: dict[str, Any], held: dict[str, Any]) -> bool:
    """Whether `entry` asks for no more than `held` (RFC 9396 6.2): its currency, no larger amount, no more charges."""
    return (entry["currency"] == held["currency"] and entry["amount"] <= held["amount"]
            and entry["max_charges"] <= held["max_charges"] and set(entry["actions"]) <= set(held["actions"])
            and entry.get("description") == held.get("description"))


def allowance(details: Sequence[Mapping[str, Any]], amount: int, currency: str) -> int:
    """The max_charges of the token's charge object when one charge of `amount` in `currency` is within it;
    DetailsExceeded saying why not otherwise (no charge object, another currency, a larger amount)."""
    entry = next((e for e in details if e.get("type") == TYPE), None)
    if entry is None:
        raise DetailsExceeded("The access token's authorization_details allow no charge.")
    approved, count = entry.get("amount"), entry.get("max_charges", 1)
    if entry.get("currency") != currency or type(approved) is not int or type(count) is not int:
        raise DetailsExceeded(f"The approved payment is in {str(entry.get('currency'))[:3].upper()}, not "
                              f"{currency.upper()}.")
    if amount > approved or "create" not in entry.get("actions", ACTIONS):
        raise DetailsExceeded(f"The approved payment is at most {money(approved, currency)} a charge; this charge is "
                              f"{money(amount, currency)}.")
    return count


def money(amount: int, currency: str) -> str:
    """12.50 USD: minor units shown in the currency's major unit (ISO 4217 exponent)."""
    exponent = EXPONENTS.get(currency, 2)
    major = f"{amount}" if exponent == 0 else f"{amount // 10 ** exponent}.{amount % 10 ** exponent:0{exponent}d}"
    return f"{major} {currency.upper()}"


def describe(entry: dict[str, Any]) -> str:
    """In plain words: charge up to 12.50 USD, once — 'Order 1042'."""
    count = entry.get("max_charges", 1)
    words = f"charge up to {money(entry['amount'], entry['currency'])}, {TIMES.get(count, f'up to {count} times')}"
    return f"{words} — '{entry['description']}'" if entry.get("description") else words
