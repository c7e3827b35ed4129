"""The form of a tenant's settings, for creating a tenant (console.tenant_create) and changing one
(console.tenant_update): one field per setting of the one table (authgate.administration.tenant_settings), and the
values a posted form gives, as that table reads them (the admin commands' flags give the same).

A switch is two radio buttons (yes, no), so that a form that leaves it out changes nothing; a list is its values
separated by spaces; an optional setting left empty is off. Each setting's failure is the message the command
prints for its flag (its flag is named beside each field).
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from authgate import audit
from authgate.administration.tenant_settings import SETTINGS, Setting, value_of
from authgate.console.pages import STEP, Link, page, url
from authgate.console.session import SignedIn
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction.pages import csrf_fields
from authgate.tenants.model import Tenant

# Failures of the operations, in the audit trail.
INVALID = "invalid_input"


def form_page(request: Request, signed: SignedIn, *, title: str, target: str, tenant: Tenant, new: bool,
              label: str, cancel: Link) -> Response:
    """The page of the form (CSRF) that posts `tenant`'s settings to the console page `target`; a new tenant's form
    asks for its id too."""
    e = html.escape
    csrf = csrf_fields(request, STEP)
    if new:
        head = ('<label for="s-tenant">Tenant id</label>\n<p class="fine" id="s-tenant-about">1 to 64 letters, '
                "digits, '.', '_' or '-', starting with a letter or digit; it never changes.</p>\n"
                '<input id="s-tenant" name="tenant" required autocomplete="off" spellcheck="false" '
                'aria-describedby="s-tenant-about">\n')
    else:
        head = f'<input type="hidden" name="tenant" value="{e(tenant.tenant_id)}">\n'
    body = (f'<form class="settings" method="post" action="{e(url(request, target))}">\n{csrf[0]}\n{head}'
            + "\n".join(_field(s, value_of(tenant, s)) for s in SETTINGS)
            + f'\n<div class="actions"><button type="submit">{e(label)}</button>\n'
              f'<a href="{e(cancel.href)}">{e(cancel.text)}</a></div>\n</form>')
    return page(request, signed, title, body, current="tenants", csrf=csrf)


def _field(setting: Setting, value: Any) -> str:
    e = html.escape
    name, about = setting.field, f"s-{setting.field}-about"
    hint = setting.means + (f" In {setting.unit}." if setting.unit else "")
    hint += {"list": " Separate them with spaces.", "set": " Separate them with spaces.",
             "optional": " Empty: off."}.get(setting.kind, "")
    described = f'<p class="fine" id="{about}">{e(hint)} <span>({e(setting.flag)})</span></p>\n'
    if setting.kind == "switch":
        radios = "\n".join(
            f'<label class="choice"><input type="radio" name="{name}" value="{word}"'
            f'{" checked" if bool(value) == on else ""}> {word.capitalize()}</label>'
            for word, on in (("yes", True), ("no", False)))
        return (f'<fieldset class="switch" aria-describedby="{about}">\n<legend>{e(setting.label)}</legend>\n'
                f"{described}{radios}\n</fieldset>")
    shown = (" ".join(sorted(value) if isinstance(value, frozenset) else value) if setting.kind in ("list", "set")
             else "" if value is None else str(value))
    numeric = ' inputmode="numeric"' if setting.kind == "number" else ""
    return (f'<label for="s-{name}">{e(setting.label)}</label>\n{described}'
            f'<input id="s-{name}" name="{name}" value="{e(shown)}"{numeric} autocomplete="off" spellcheck="false" '
            f'aria-describedby="{about}">')


def posted(fields: Mapping[str, str], *, new: bool) -> dict[str, Any]:
    """The settings a posted form gives, by field, as tenant_settings.given reads them (a field left out: not
    given; on a new tenant's form, an empty text or number too: its default)."""
    values: dict[str, Any] = {}
    for s in SETTINGS:
        if s.field not in fields:
            continue
        value = fields[s.field]
        if s.kind == "switch":
            if value not in ("yes", "no"):
                raise ApiError("invalid_request", f"{s.label} ({s.flag}) is yes or no.")
            values[s.field] = value == "yes"
        elif s.kind in ("list", "set"):
            values[s.field] = value.split()
        elif s.kind in ("number", "optional"):
            values[s.field] = value.strip()
        else:
            values[s.field] = value
        if new and s.kind in ("text", "number") and not values[s.field]:
            del values[s.field]
    return values


def form_value(setting: Setting, value: Any) -> str:
    """A setting's given value as its form field holds it (for the confirmation's hidden fields)."""
    if setting.kind == "switch":
        return "yes" if value else "no"
    return " ".join(value) if isinstance(value, list) else str(value)


def plain(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Settings by field as the audit trail keeps them (JSON: lists for lists and sets)."""
    return {field: sorted(v) if isinstance(v, frozenset) else list(v) if isinstance(v, tuple) else v
            for field, v in settings.items()}


def target(tenant_id: str) -> audit.Party:
    return audit.Party("tenant", tenant_id)
