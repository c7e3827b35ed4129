"""The table of a tenant's settings that `authgate tenants create | update | show | list` share.

Each `Setting` names its Tenant field (authgate.tenants.model.FIELDS), its flag, how one value is
read and checked, and its help; the commands' flags, the Tenant they build, the JSON and text views
all come from `SETTINGS`. A new tenant setting is one more line here (and its field in the store).

Kinds: "text" (one value), "list" (repeat the flag; order kept, duplicates dropped), "set" (the
same, order meaningless), "switch" (--flag / --no-flag), "number", "optional" (a number or none:
`--no-FLAG` on update). On `update`, a list or set flag replaces the whole list and `--no-FLAG`
empties it; a flag not given leaves the setting as it is.
"""

from __future__ import annotations

import argparse
import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any, Literal, NamedTuple

from authgate_cli.admin import arguments
from authgate_cli.admin.arguments import InvalidInput

Kind = Literal["text", "list", "set", "switch", "number", "optional"]
NAME_MAX = 200
CAP_RANGE = (1, 100_000)
# RFC 9470 max_age a tenant may ask of a charge's sign-in: a second to a day.
SCA_MAX_AGE_RANGE = (1, 86_400)
# What `--no-FLAG` of an "optional" setting stores (read as None: the setting is off).
_OFF = ""
# Tenant and client ids end up in keys, tokens and log lines: a letter or digit, then letters,
# digits, ".", "_" or "-" ("#" separates parts of the limiter's keys, so never in an id).
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_HOST = re.compile(r"\.?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")


def tenant_id(kind: str, value: str) -> str:
    """A tenant or client id as tenants use them."""
    if not _ID.fullmatch(value):
        raise InvalidInput(f"invalid {kind} {value!r}: 1-64 characters, letters, digits, '.', '_' or '-', "
                           "starting with a letter or digit")
    return value


def _name(value: str) -> str:
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in value):
        raise InvalidInput(f"invalid name {value!r}: control characters are not allowed")
    if not value.strip() or len(value) > NAME_MAX:
        raise InvalidInput(f"invalid name {value!r}: 1-{NAME_MAX} characters")
    return value.strip()


def _currency(value: str) -> str:
    from authgate.charges.currencies import is_iso_4217

    code = value.lower()
    if not is_iso_4217(code):
        raise InvalidInput(f"unknown currency {value!r}: an ISO 4217 code such as usd or eur")
    return code


def _scope(value: str) -> str:
    """A scope token; whether it is known is asked of the stack (`on_the_stack`)."""
    try:
        return arguments.scope_token(value, "--forbid-scope")
    except arguments.InvalidInput as exc:
        raise InvalidInput(str(exc)) from None


def _client(value: str) -> str:
    return tenant_id("client id", value)


def _host(value: str) -> str:
    """A host ("tools.example"), a domain (".example.com") or * (docs/agents.md)."""
    if value == "*" or _HOST.fullmatch(value):
        return value
    raise InvalidInput(f"--client-metadata-host {value!r}: give a host (tools.example), a domain (.example.com) or *")


def _login_domain(value: str) -> str:
    """An email domain (example.com): lower-cased, at least two labels, no leading dot."""
    domain = value.lower()
    if "." in domain and not domain.startswith(".") and len(domain) <= 253 and _HOST.fullmatch(domain):
        return domain
    raise InvalidInput(f"--login-domain {value!r}: give the domain of your users' email addresses, such as "
                       "example.com")


def _cap(value: str) -> int:
    low, high = CAP_RANGE
    try:
        number = int(value)
    except ValueError:
        number = low - 1
    if not low <= number <= high:
        raise InvalidInput(f"--registered-clients-cap must be between {low} and {high}, got {value}")
    return number


def _number(flag: str, value: str, low: int, high: int, unit: str = "") -> int:
    """An integer from `low` to `high`, or InvalidInput naming the flag."""
    number = int(value) if value.isascii() and value.isdigit() else low - 1
    if not low <= number <= high:
        raise InvalidInput(f"{flag} must be an integer from {low} to {high}{unit}, got {value!r}")
    return number


def _sca_threshold(value: str) -> int | None:
    """A charge amount in minor units (1 to the largest charge), or off (--no-sca-threshold)."""
    from authgate.charges.model import MAX_AMOUNT

    return None if value == _OFF else _number("--sca-threshold", value, 1, MAX_AMOUNT, " (minor units)")


def _sca_max_age(value: str) -> int:
    return _number("--sca-max-age", value, *SCA_MAX_AGE_RANGE, " seconds")


def _approval_webhook(value: str) -> str:
    """An https URL (http to loopback only on the local stack); its addresses are checked by `on_the_stack`."""
    from authgate.outbound.post import Failed, target

    if value == _OFF:
        return value
    try:
        target(value, allow_loopback=True)
    except Failed as exc:
        raise InvalidInput(f"--approval-webhook {value[:200]!r} is refused: {exc.internal}") from None
    return value


def _webhook_reachable(url: str) -> None:
    """The webhook under authgate.outbound's rules as the stack applies them: https unless the stack allows
    loopback, and every address its host resolves to public (checked again at each delivery)."""
    import time

    from authgate.outbound.connection import Unreachable, pinned_address, system_resolver
    from authgate.outbound.post import Failed, target
    from authgate.settings import get_settings

    loopback = get_settings().allow_loopback_outbound
    try:
        where = target(url, allow_loopback=loopback)
        pinned_address(where.host, where.port, system_resolver, time.monotonic() + 5, loopback)
    except (Failed, Unreachable) as exc:
        raise InvalidInput(f"--approval-webhook {url[:200]!r} is refused: {exc.internal}") from None


class Setting(NamedTuple):
    """One tenant setting: its Tenant field, its flag, its kind, how one value is read, and its help."""

    field: str
    flag: str
    kind: Kind
    read: Callable[[str], Any]
    help: str
    metavar: str = "VALUE"
    # Its column in `authgate tenants list` ("": not listed there; `show` shows every setting).
    column: str = ""


SETTINGS: tuple[Setting, ...] = (
    Setting("name", "--name", "text", _name, "display name (default: the id)", "NAME", "NAME"),
    Setting("currencies", "--currency", "list", _currency,
            "ISO 4217 currency its charges may use (repeat; at least one)", "CODE", "CURRENCIES"),
    Setting("forbidden_scopes", "--forbid-scope", "set", _scope, "scope its users may never grant (repeat)",
            "SCOPE", "FORBIDDEN SCOPES"),
    Setting("approved_clients", "--approve-client", "set", _client,
            "client its admin approves (repeat; for clients registered with --requires-admin-approval)",
            "CLIENT_ID", "APPROVED CLIENTS"),
    Setting("client_metadata_hosts", "--client-metadata-host", "list", _host,
            "its users may authorize clients whose metadata document is on HOST, under the domain .DOMAIN, or "
            "anywhere (*) (repeat; none by default; docs/agents.md)", "HOST"),
    Setting("registered_clients", "--registered-clients", "switch", bool,
            "whether its users may authorize clients that registered themselves (RFC 7591; docs/agents.md)"),
    Setting("registered_clients_cap", "--registered-clients-cap", "number", _cap,
            "how many registered clients it holds at most (default 100)", "N"),
    Setting("login_domains", "--login-domain", "list", _login_domain,
            "email domain whose users sign in with their email address and no organisation to type (repeat; "
            "a domain belongs to one tenant; docs/users.md)", "DOMAIN"),
    Setting("sca_threshold", "--sca-threshold", "optional", _sca_threshold,
            "charges of at least AMOUNT (minor units) need a user's sign-in with a second factor (RFC 9470; "
            "docs/strong-authentication.md); tokens without a user are not subject", "AMOUNT"),
    Setting("sca_max_age", "--sca-max-age", "number", _sca_max_age,
            "how old that sign-in may be, in seconds (default 300)", "SECONDS"),
    Setting("require_mfa", "--require-mfa", "switch", bool,
            "whether every sign-in of its users needs a second factor (acr mfa); users without one enrol at their "
            "next sign-in"),
    Setting("approval_webhook", "--approval-webhook", "optional", _approval_webhook,
            "https URL that receives each backchannel request's signed approval link (OpenID Connect CIBA; "
            "docs/ciba.md)", "URL"),
)


def add_flags(parser: argparse.ArgumentParser, *, update: bool) -> None:
    """Every setting's flag; on update, `--no-FLAG` too for lists and sets (empty them). Not given: None."""
    for s in SETTINGS:
        if s.kind == "switch":
            parser.add_argument(s.flag, dest=s.field, action=argparse.BooleanOptionalAction, default=None, help=s.help)
        elif s.kind in ("list", "set"):
            parser.add_argument(s.flag, dest=s.field, action="append", default=None, metavar=s.metavar, help=s.help)
            if update:
                parser.add_argument(f"--no-{s.flag[2:]}", dest=s.field, action="store_const", const=[],
                                    help=f"empty the {s.flag} list")
        else:
            parser.add_argument(s.flag, dest=s.field, default=None, metavar=s.metavar, help=s.help)
            if s.kind == "optional" and update:
                parser.add_argument(f"--no-{s.flag[2:]}", dest=s.field, action="store_const", const=_OFF,
                                    help=f"turn {s.flag} off")


def given(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the arguments set, read and checked (InvalidInput names the first bad one)."""
    values: dict[str, Any] = {}
    for s in SETTINGS:
        raw = getattr(args, s.field, None)
        if raw is None:
            continue
        if s.kind in ("list", "set"):
            items = [s.read(str(v)) for v in raw]
            values[s.field] = frozenset(items) if s.kind == "set" else tuple(dict.fromkeys(items))
        elif s.kind == "switch":
            values[s.field] = bool(raw)
        else:
            values[s.field] = s.read(str(raw))
    return values


def checked(tenant: Any) -> Any:
    """The rules across settings, for a new tenant and an updated one alike."""
    if not tenant.currencies:
        raise InvalidInput("give at least one --currency (the currencies this tenant's charges may use)")
    return tenant


def on_the_stack(tenant: Any) -> None:
    """What only the stack acted on can tell: every forbidden scope is known there (the charges API's, or a
    registered resource's), and the approval webhook's addresses are public."""
    arguments.known_scopes(sorted(tenant.forbidden_scopes))
    if tenant.approval_webhook:
        _webhook_reachable(tenant.approval_webhook)


def view(tenant: Any) -> dict[str, Any]:
    """The JSON view: the id, then every setting (lists for lists, sorted lists for sets)."""
    out: dict[str, Any] = {"tenant_id": tenant.tenant_id}
    for s in SETTINGS:
        value = getattr(tenant, s.field)
        if s.kind == "optional" and value == _OFF:
            value = None  # a text setting that is off, as a number setting that is off
        out[s.field] = sorted(value) if s.kind == "set" else list(value) if s.kind == "list" else value
    return out


def shown(value: Any) -> str:
    """One setting's value in text output."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None or value == _OFF:
        return "-"
    if isinstance(value, (list, tuple, frozenset, set)):
        return " ".join(sorted(value) if isinstance(value, (frozenset, set)) else value) or "-"
    return str(value)


def columns(tenant: Any) -> tuple[str, ...]:
    """The tenant's row in `authgate tenants list`."""
    return (tenant.tenant_id, *(shown(getattr(tenant, s.field)).replace(" ", ",") if s.field == "currencies"
                                else shown(getattr(tenant, s.field)) for s in SETTINGS if s.column))


HEADINGS = ("TENANT_ID", *(s.column for s in SETTINGS if s.column))


def lines(tenant: Any) -> list[str]:
    """Every setting of one tenant, one per line (`authgate tenants show`)."""
    values: Mapping[str, Any] = {"tenant_id": tenant.tenant_id, **{s.field: getattr(tenant, s.field) for s in SETTINGS}}
    width = max(len(k) for k in values) + 1
    return [f"{(k + ':').ljust(width)} {shown(v)}" for k, v in values.items()]
