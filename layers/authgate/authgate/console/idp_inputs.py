"""The inputs of the identity provider forms (console.idp_fields): a text field, a select, the client secret, a text
area and a check box, each with its label and hint (aria-describedby), escaped; nothing a form gives back is ever
written into a secret's input."""

from __future__ import annotations

import html
from collections.abc import Sequence

e = html.escape


def field(name: str, label: str, value: str = "", *, kind: str = "text", hint: str = "",
          required: bool = False) -> str:
    described = f' aria-describedby="{name}-hint"' if hint else ""
    return (f'<label for="{name}">{e(label)}</label>\n<input id="{name}" name="{name}" type="{kind}" '
            f'value="{e(value)}" autocomplete="off" spellcheck="false"{described}{" required" if required else ""}>'
            + (f'\n<p class="hint" id="{name}-hint">{e(hint)}</p>' if hint else ""))


def select(name: str, label: str, options: Sequence[tuple[str, str]], chosen: str, hint: str) -> str:
    shown = "\n".join(f'<option value="{e(value)}"{" selected" if value == chosen else ""}>{e(text)}</option>'
                      for value, text in options)
    return (f'<label for="{name}">{e(label)}</label>\n<select id="{name}" name="{name}" aria-describedby="{name}-hint">'
            f'\n{shown}\n</select>\n<p class="hint" id="{name}-hint">{e(hint)}</p>')


def secret(*, required: bool, new: bool = True) -> str:
    """The client secret: a password field, never filled in (on a change, empty keeps the secret as it is)."""
    hint = ("The client secret the IdP issued; sealed before it is stored, never shown."
            if required or not new else "A new client secret the IdP issued; empty: the secret stays as it is.")
    return (f'<label for="client_secret">Client secret</label>\n<input id="client_secret" name="client_secret" '
            f'type="password" autocomplete="new-password" aria-describedby="client_secret-hint"'
            f'{" required" if required else ""}>\n<p class="hint" id="client_secret-hint">{hint}</p>')


def textarea(name: str, label: str, hint: str, *, required: bool = False) -> str:
    return (f'<label for="{name}">{e(label)}</label>\n<textarea id="{name}" name="{name}" rows="8" '
            f'spellcheck="false" autocomplete="off" aria-describedby="{name}-hint"{" required" if required else ""}>'
            f'</textarea>\n<p class="hint" id="{name}-hint">{e(hint)}</p>')


def check(name: str, label: str, checked: bool, hint: str = "") -> str:
    described = f' aria-describedby="{name}-hint"' if hint else ""
    return (f'<label class="check" for="{name}"><input id="{name}" name="{name}" type="checkbox" value="yes"'
            f'{" checked" if checked else ""}{described}> {e(label)}</label>'
            + (f'\n<p class="hint" id="{name}-hint">{e(hint)}</p>' if hint else ""))
