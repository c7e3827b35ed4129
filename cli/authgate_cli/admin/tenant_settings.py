"""The admin commands' side of a tenant's settings: the flags of `authgate tenants create | update` and the views of
`show | list`, from the one table of settings (authgate.administration.tenant_settings, which the console shares).

On `update`, a list or set flag replaces the whole list and `--no-FLAG` empties it; an "optional" setting's
`--no-FLAG` turns it off; a flag not given leaves the setting as it is.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from authgate.administration.tenant_settings import OFF, SETTINGS, value_of


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
                parser.add_argument(f"--no-{s.flag[2:]}", dest=s.field, action="store_const", const=OFF,
                                    help=f"turn {s.flag} off")


def view(tenant: Any) -> dict[str, Any]:
    """The JSON view: the id, then every setting (lists for lists, sorted lists for sets)."""
    out: dict[str, Any] = {"tenant_id": tenant.tenant_id}
    for s in SETTINGS:
        value = value_of(tenant, s)  # a text setting that is off is None, as a number setting that is off
        out[s.field] = sorted(value) if s.kind == "set" else list(value) if s.kind == "list" else value
    return out


def shown(value: Any) -> str:
    """One setting's value in text output."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None or value == OFF:
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
