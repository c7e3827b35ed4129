"""The steps of a person's way through a flow, by name: every form authgate renders names its step in its sealed
state, and a POST is dispatched on that name, never on which fields it happens to carry.

The interaction's steps: `password` (the sign-in form: a password, a code typed beside it, the choice of a
passkey or of an identity provider), `passkey` (a passkey's ceremony answered), `factor` (the second-factor step: a
code, a recovery code, a passkey, or an enrolment's first code), `change` (the forced password change), `upstream`
(an identity provider's answer, checked, brought back to the flow's page: interaction.upstream_answer) and `link`
(the proof of the account an identity provider's person is linked to). A flow adds its own (`consent`,
`decision`, `code`, `account`, ...). A step is a function of the flow's table (`Table`); a form whose step is
not in the table, or that carries another step's own field, gets the flow's stale-form answer (`refuse`).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

PASSWORD = "password"
PASSKEY = "passkey"
FACTOR = "factor"
CHANGE = "change"
UPSTREAM = "upstream"
LINK = "link"
# The field each step of the interaction owns: a form of another step that carries it is stale (it was altered,
# or it is another step's form under this one's state).
OWN_FIELDS = {"factor_ticket": FACTOR, "change_ticket": CHANGE, "credential": PASSKEY, "upstream_ticket": UPSTREAM,
              "link_ticket": LINK}

Handler = TypeVar("Handler", bound=Callable[..., object])


class Stale(Exception):
    """A form whose sealed step is unknown, or whose fields are another step's."""


def handler(table: Mapping[str, Handler], step: str, fields: Mapping[str, object],
            carries: Mapping[str, tuple[str, ...]] | None = None) -> Handler:
    """The handler of `step` in a flow's table; Stale when there is none, or when the form carries a field another
    step owns (`OWN_FIELDS`, and what `carries` lets a step of the flow take besides its own: a factor step's
    passkey answers with a credential)."""
    found = table.get(step)
    if found is None:
        raise Stale(f"unknown step {step[:32]!r}")
    allowed = (carries or {}).get(step, ())
    for name, owner in OWN_FIELDS.items():
        if name in fields and fields[name] != "" and owner != step and name not in allowed:
            raise Stale(f"a {owner} field on a {step} form")
    return found


def hidden(state: Sequence[tuple[str, str]], own: Sequence[tuple[str, str]] = ()) -> str:
    """A form's hidden inputs: the flow's state, the step's `own` sealed fields right after its CSRF token."""
    fields = list(state)
    at = next((i + 1 for i, (name, _) in enumerate(fields) if name == "csrf"), len(fields))
    fields[at:at] = own
    e = html.escape
    return "\n".join(f'<input type="hidden" name="{e(name)}" value="{e(value)}">' for name, value in fields)


def csrf_of(state: Sequence[tuple[str, str]]) -> str:
    """The CSRF token among a flow's state (what a step's ticket is bound to)."""
    return next((value for name, value in state if name == "csrf"), "")
