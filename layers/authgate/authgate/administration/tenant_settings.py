"""A tenant's settings, one table (`SETTINGS`): what `authgate tenants create | update | show | list` and the console's
tenant pages share.

Each `Setting` names its Tenant field (authgate.tenants.model.FIELDS), its flag, how one value is read and checked,
its help, and for the console its label, what it means in words people read, its unit and whether a change of it
weakens the tenant's security (asked for before it is made). A new tenant setting is one more line here (and its
field in the model).

Kinds: "text" (one value), "list" (several; order kept, duplicates dropped), "set" (the same, order meaningless),
"switch" (on or off), "number", "optional" (a number or text, or OFF: the setting is off). `given` reads the values
an operator gave (None: not given, kept as it is on an update): a list of strings for a list or a set, a bool for a
switch, a string for the others.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any, Literal, NamedTuple

from authgate.administration.input import InvalidInput, known_scopes, scope_token
from authgate.tenants.model import Tenant

Kind = Literal["text", "list", "set", "switch", "number", "optional"]
NAME_MAX = 200
CAP_RANGE = (1, 100_000)
# RFC 9470 max_age a tenant may ask of a charge's sign-in: a second to a day.
SCA_MAX_AGE_RANGE = (1, 86_400)
# What `--no-FLAG` of an "optional" setting stores (read as None: the setting is off).
OFF = ""
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
    return scope_token(value, "--forbid-scope")


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

    return None if value == OFF else _number("--sca-threshold", value, 1, MAX_AMOUNT, " (minor units)")


def _sca_max_age(value: str) -> int:
    return _number("--sca-max-age", value, *SCA_MAX_AGE_RANGE, " seconds")


def _approval_webhook(value: str) -> str:
    """An https URL (http to loopback only on the local stack); its addresses are checked by `on_the_stack`."""
    from authgate.outbound.post import Failed, target

    if value == OFF:
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
    """One tenant setting: its Tenant field, its flag, its kind, how one value is read, its help; its label and what
    it means (the console), its unit, and when a change of it weakens the tenant's security (before, after)."""

    field: str
    flag: str
    kind: Kind
    read: Callable[[str], Any]
    help: str
    metavar: str = "VALUE"
    # Its column in `authgate tenants list` ("": not listed there; `show` shows every setting).
    column: str = ""
    label: str = ""
    means: str = ""
    unit: str = ""
    weakens: Callable[[Any, Any], bool] = lambda before, after: False


SETTINGS: tuple[Setting, ...] = (
    Setting("name", "--name", "text", _name, "display name (default: the id)", "NAME", "NAME",
            label="Name", means="The tenant as people read it."),
    Setting("currencies", "--currency", "list", _currency,
            "ISO 4217 currency its charges may use (repeat; at least one)", "CODE", "CURRENCIES",
            label="Currencies", means="The currencies its charges may use (ISO 4217 codes, at least one)."),
    Setting("forbidden_scopes", "--forbid-scope", "set", _scope, "scope its users may never grant (repeat)",
            "SCOPE", "FORBIDDEN SCOPES", label="Forbidden scopes",
            means="What its people may never allow an application to do, whatever the application asks.",
            weakens=lambda before, after: bool(before - after)),
    Setting("approved_clients", "--approve-client", "set", _client,
            "client its admin approves (repeat; for clients registered with --requires-admin-approval)",
            "CLIENT_ID", "APPROVED CLIENTS", label="Approved applications",
            means="Applications registered to need an administrator's approval that this tenant's administrator "
                  "approved: its people may sign in to them.",
            weakens=lambda before, after: bool(after - before)),
    Setting("client_metadata_hosts", "--client-metadata-host", "list", _host,
            "its users may authorize clients whose metadata document is on HOST, under the domain .DOMAIN, or "
            "anywhere (*) (repeat; none by default; docs/agents.md)", "HOST",
            label="Applications known by a metadata document",
            means="Its people may allow applications whose metadata document is on these hosts (a leading dot: any "
                  "host under that domain; *: anywhere).",
            weakens=lambda before, after: bool(set(after) - set(before))),
    Setting("registered_clients", "--registered-clients", "switch", bool,
            "whether its users may authorize clients that registered themselves (RFC 7591; docs/agents.md)",
            label="Self-registered applications",
            means="Whether its people may allow applications that registered themselves.",
            weakens=lambda before, after: after and not before),
    Setting("registered_clients_cap", "--registered-clients-cap", "number", _cap,
            "how many registered clients it holds at most (default 100)", "N",
            label="Self-registered applications at most",
            means="How many self-registered applications it holds at most.",
            weakens=lambda before, after: after > before),
    Setting("login_domains", "--login-domain", "list", _login_domain,
            "email domain whose users sign in with their email address and no organisation to type (repeat; "
            "a domain belongs to one tenant; docs/users.md)", "DOMAIN", label="Login domains",
            means="People whose email address is at one of these domains sign in with it, without typing the "
                  "organisation (a domain belongs to one tenant)."),
    Setting("sca_threshold", "--sca-threshold", "optional", _sca_threshold,
            "charges of at least AMOUNT (minor units) need a user's sign-in with a second factor (RFC 9470; "
            "docs/strong-authentication.md); tokens without a user are not subject", "AMOUNT",
            label="Second factor for charges from", unit="minor units",
            means="A charge of at least this amount (in minor units, cents) needs a sign-in with a second factor; "
                  "off: no charge does.",
            weakens=lambda before, after: before is not None and (after is None or after > before)),
    Setting("sca_max_age", "--sca-max-age", "number", _sca_max_age,
            "how old that sign-in may be, in seconds (default 300)", "SECONDS",
            label="Age of that sign-in, at most", unit="seconds", means="How old that sign-in may be.",
            weakens=lambda before, after: after > before),
    Setting("require_mfa", "--require-mfa", "switch", bool,
            "whether every sign-in of its users needs a second factor (acr mfa); users without one enrol at their "
            "next sign-in", label="Second factor required",
            means="Whether every sign-in of its people needs a second factor (a one-time code or a passkey) after "
                  "the password; someone without one sets one up at their next sign-in.",
            weakens=lambda before, after: before and not after),
    Setting("approval_webhook", "--approval-webhook", "optional", _approval_webhook,
            "https URL that receives each backchannel request's signed approval link (OpenID Connect CIBA; "
            "docs/ciba.md)", "URL", label="Approval webhook",
            means="Where the approval link of each backchannel request is posted (OpenID Connect CIBA); off: "
                  "nowhere.",
            weakens=lambda before, after: bool(after) and after != before),
)


def given(values: Mapping[str, Any]) -> dict[str, Any]:
    """The settings `values` set (by field; None: not given), read and checked (InvalidInput names the first bad
    one)."""
    out: dict[str, Any] = {}
    for s in SETTINGS:
        raw = values.get(s.field)
        if raw is None:
            continue
        if s.kind in ("list", "set"):
            items = [s.read(str(v)) for v in raw]
            out[s.field] = frozenset(items) if s.kind == "set" else tuple(dict.fromkeys(items))
        elif s.kind == "switch":
            out[s.field] = bool(raw)
        else:
            out[s.field] = s.read(str(raw))
    return out


def new_tenant(tenant: str, values: Mapping[str, Any]) -> Tenant:
    """The Tenant that `create` would store (its name the id unless given), or InvalidInput naming the first bad
    value."""
    new = tenant_id("tenant id", tenant)
    return checked(Tenant(new, name=new)._replace(**given(values)))


def checked(tenant: Tenant) -> Tenant:
    """The rules across settings, for a new tenant and an updated one alike."""
    if not tenant.currencies:
        raise InvalidInput("give at least one --currency (the currencies this tenant's charges may use)")
    return tenant


def on_the_stack(tenant: Tenant) -> None:
    """What only the stack acted on can tell: every forbidden scope is known there (the charges API's, or a
    registered resource's), and the approval webhook's addresses are public."""
    known_scopes(sorted(tenant.forbidden_scopes))
    if tenant.approval_webhook:
        _webhook_reachable(tenant.approval_webhook)


def value_of(tenant: Tenant, setting: Setting) -> Any:
    """A setting's value in `tenant` (an optional setting that is off: None, whatever its kind)."""
    value = getattr(tenant, setting.field)
    return None if setting.kind == "optional" and value == OFF else value


def changed(before: Tenant, after: Tenant) -> tuple[Setting, ...]:
    """The settings whose values differ."""
    return tuple(s for s in SETTINGS if value_of(before, s) != value_of(after, s))


def weakened(before: Tenant, after: Tenant) -> tuple[Setting, ...]:
    """The changed settings whose change weakens the tenant's security (the console asks before it is made)."""
    return tuple(s for s in changed(before, after) if s.weakens(value_of(before, s), value_of(after, s)))
