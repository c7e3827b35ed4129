"""The interaction's contract with a flow: what the flow hands off (`HandOff`), and what it resumes with.

A flow that needs a person (the authorization endpoint, the device verification page, the CIBA approval
page, the account page) builds a `HandOff`: whose people may sign in, how strongly (OpenID Connect Core 3.1.2.1
acr_values, max_age, prompt, login_hint, id_token_hint's subject; 5.5.1.1 an essential acr), and where to come
back (`Back`: the flow's form action and its own sealed state, for any form of any step). It gets back a
`Response` (a page of the interaction: a second factor, a passkey's ceremony, a forced password change), an
`Again` (its own page again, with the interaction's message) or an `Authentication`: who the person is, how
and when they proved it, and the sign-in session it went on. The flow resumes with that and never sees a
password, a code or a passkey (node-oidc-provider's interactions and `resume`).

A step kind is a function of the interaction that answers one of those three (interaction.steps names them).
An upstream identity provider is one more: its page is a redirect away, its callback comes back with the
interaction's sealed state, which carries the flow's (`Back.notes` and the flow's fields), and ends as every
step ends (interaction.outcome).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from authgate.interaction import messages
from authgate.sessions.model import Session, Upstream
from authgate.single_use import authentication
from authgate.tenants.model import Tenant

NO_NOTES: Mapping[str, Any] = MappingProxyType({})


class Voice(NamedTuple):
    """How the interaction's pages name what the flow asks (HTML, escaped by the flow)."""

    # Who asks, in plain text ("Continue to <asker>" after a new enrolment's recovery codes).
    asker: str
    # The second-factor page's first paragraph ("To continue to <strong>X</strong>, confirm it is you.").
    factor_lead: str
    # Before ", confirm it is you with one of your passkeys" ("To continue to <strong>X</strong>").
    goal: str
    # What a passkey alone approves ("<strong>X</strong>'s request").
    approved: str
    # The second-factor page's button.
    button: str = "Continue"
    # The title of a passkey sign-in's ceremony page.
    passkey_title: str = "Sign in with a passkey"


class Back(NamedTuple):
    """Where the interaction's pages come back to: the flow's form and its own state."""

    # The flow's form action, relative to its page ("authorize", "device", "approve", "account").
    action: str
    # The flow's hidden fields (its own sealed state) for a form of `step`, in their order: the interaction puts
    # its own sealed state (a step's ticket) right after the field named "csrf", whose value it is bound to.
    state: Callable[[str], Sequence[tuple[str, str]]]
    voice: Voice
    # An origin the forms lead on to (the client's redirect, CSP form-action), "" for none.
    leads_to: str = ""
    # What the flow needs back after a round trip through a step of the interaction (sealed in the step's state).
    notes: Mapping[str, Any] = NO_NOTES
    # The flow's outcome log (ids only): the interaction names what happened ("login_invalid", "passkey_refused").
    log: Callable[[str], None] = lambda outcome: None


# A hand-off whose interaction shows no page of its own (its sign-in is one form of the flow's).
NO_BACK = Back(action="", state=lambda step: [], voice=Voice(asker="", factor_lead="", goal="", approved=""))


class HandOff(NamedTuple):
    """What a flow asks of the interaction."""

    # Whose people may sign in; Tenant("") when the person names their organisation (a self-registered client).
    tenant: Tenant
    back: Back = NO_BACK
    # OIDC Core 3.1.2.1 and 5.5.1.1: voluntary acr_values and an essential acr claim's values (RFC 9470 4).
    acr_values: tuple[str, ...] = ()
    essential_acr: tuple[str, ...] = ()
    max_age: int | None = None
    prompt: str = ""
    login_hint: str | None = None
    # The `sub` the id_token_hint names: nobody else may complete the request (OIDC Core 3.1.2.1).
    hinted_sub: str | None = None
    # The person is named already (the approval page's request names them): not typed.
    username: str | None = None
    # A code beside the password: "offered" when the request asks for mfa (optional, one attempt with the
    # password), "required" (mfa in one form: the approval page), "none".
    code: Literal["none", "offered", "required"] = "none"
    # The sign-in opens (or raises) the browser's sign-in session.
    session: bool = True
    # A password an operator reset: "ask" shows the forced change (interaction.password_change), "resume" gives
    # the flow an Authentication flagged `change_due`, with no session (the account page changes it itself).
    change: Literal["ask", "resume"] = "ask"
    # How the flow's sign-in form words its refusals (interaction.messages).
    words: messages.Words = messages.SIGN_IN
    # Called with the person's tenant once they are known, before any session is opened: a flow whose client has
    # no tenant yet lets that tenant's policy decide (a refusal is raised).
    admit: Callable[[str], object] | None = None
    # The client the flow acts for, named in the audit trail's sign-in events (none: the account page).
    client_id: str = ""


class Again(NamedTuple):
    """The flow's own page again (its sign-in form), with `message` (interaction.messages)."""

    message: str


class Authentication(NamedTuple):
    """Who the person is and how they proved it: what a flow resumes with."""

    tenant_id: str
    user_id: str
    username: str
    acr: str
    amr: tuple[str, ...]
    auth_time: int
    generation: int = 0
    # The sign-in session it went on (None: the hand-off asked for none, or a change is due first).
    session: Session | None = None
    # Set-Cookie of the session's new secret, when one was opened or raised.
    cookie: str | None = None
    # An enrolment's recovery codes, made on the way: the flow's next page shows them, once.
    recovery: tuple[str, ...] = ()
    # Back.notes, as the flow left them before the round trip.
    notes: Mapping[str, Any] = NO_NOTES
    # The operator reset the password and the hand-off said "resume": the flow changes it.
    change_due: bool = False
    # An upstream identity provider's sign-in proved the person: what the session it opens keeps of it.
    upstream: Upstream | None = None

    @property
    def recorded(self) -> authentication.Authentication:
        """What a code, a device approval or a backchannel decision records of this sign-in (OIDC Core 2)."""
        return authentication.Authentication(user_id=self.user_id, auth_time=self.auth_time, acr=self.acr,
                                             amr=self.amr, sid=self.session.sid if self.session else "",
                                             generation=self.generation)

