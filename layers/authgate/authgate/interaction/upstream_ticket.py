"""An identity provider's answer, checked, as the flow's page gets it back: the upstream step's ticket (sealed,
interaction.sealed_state).

The callback (interaction.upstream_callback) checks the answer against its pending sign-in, then hands the
person -- who the IdP says they are, and how -- to the flow's own page, through this browser, in a form that posts
there (the flow's state and this ticket). The ticket is HMAC-sealed under its own purpose label, lives 5
minutes, and is bound to the flow form's CSRF token (its digest), itself bound to this browser's binding cookie:
it opens only in the browser the sign-in started in, on that form. A `link` ticket also names the account that
claims the person's email (identities.Resolution, link_required), whose proof the link page asks for; the page
never shows its username.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, Literal, NamedTuple

from authgate.federation.upstream import UpstreamIdentity
from authgate.interaction.handoff import NO_NOTES
from authgate.interaction.sealed_state import FormStateInvalid, open_state, seal_state

TTL = 300
_PURPOSE = {"signed": b"upstream-ticket", "link": b"upstream-link-ticket"}
Kind = Literal["signed", "link"]


class Ticket(NamedTuple):
    """Who an IdP vouched for, and where it came from."""

    identity: UpstreamIdentity
    idp_id: str
    protocol: str
    # The sign-in asked the IdP for a second factor (step-up upstream): its answer is final.
    second_factor: bool = False
    notes: Mapping[str, Any] = NO_NOTES
    # A `link` ticket: the account that claims the identity's email (user_id, username), to be proved.
    account: tuple[str, str] = ("", "")


def sealed(kind: Kind, ticket: Ticket, csrf: str) -> str:
    """The ticket of `kind`, sealed and bound to the flow form's CSRF token `csrf`."""
    return seal_state(_PURPOSE[kind], {"i": list(ticket.identity), "d": ticket.idp_id, "p": ticket.protocol,
                                       "s": ticket.second_factor, "n": dict(ticket.notes),
                                       "a": list(ticket.account), "c": _digest(csrf)}, TTL)


def opened(kind: Kind, token: str, csrf: str) -> Ticket | None:
    """The ticket of `kind` a form posted with its CSRF token `csrf`; None when it is missing, altered, expired, of
    another kind or of another form."""
    try:
        state = open_state(_PURPOSE[kind], token)
        if state.get("c") != _digest(csrf):
            return None
        identity = UpstreamIdentity(*state["i"])
        identity = identity._replace(groups=tuple(identity.groups), amr=tuple(identity.amr))
        notes = state.get("n")
        account = state.get("a") or ["", ""]
        return Ticket(identity, str(state["d"]), str(state["p"]), bool(state.get("s")),
                      notes if isinstance(notes, dict) else {}, (str(account[0]), str(account[1])))
    except (FormStateInvalid, ValueError, KeyError, TypeError, IndexError):
        return None


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogateescape")).hexdigest()[:32]
