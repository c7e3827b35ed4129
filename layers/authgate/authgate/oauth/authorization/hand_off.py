"""What the authorization endpoint hands the interaction (interaction.handoff): the client's tenant, how strongly the
request asks the person to sign in (OIDC Core 3.1.2.1, 5.5.1.1; RFC 9470 4), and where to come back: a form posting
to `authorize` with the request sealed again for each step (sealed_form.Sealed.again) and the same CSRF token.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from authgate.clients.model import Client
from authgate.http.request import Request
from authgate.interaction import messages, steps
from authgate.interaction.handoff import Back, HandOff, Voice
from authgate.oauth.authorization import admission, sealed_form
from authgate.oauth.authorization.consent_page import redirect_origin
from authgate.oauth.authorization.outcome_log import log
from authgate.oauth.authorization.request import AuthorizationRequest
from authgate.oauth.authorization.sealed_form import Sealed
from authgate.tenants.model import Tenant

# The steps whose form carries the decision made on the sign-in form (Approve), so that it is not asked again.
DECIDED = (steps.CHANGE, steps.PASSKEY)


def hand_off(request: Request, client: Client, tenant: Tenant, auth: AuthorizationRequest,
             state: Callable[[str], list[tuple[str, str]]], *, notes: dict[str, Any] | None = None) -> HandOff:
    """The hand-off of `auth`, its forms posting back with `state` (`posted` or `Fresh`); a self-registered client's
    person's tenant is admitted by its policy and rules (admission.self_registered) before any session is opened."""
    name = html.escape(client.name or client.client_id)
    back = Back(action="authorize", state=state, leads_to=redirect_origin(auth.redirect_uri),
                notes=notes or {}, log=lambda outcome: log(outcome, auth),
                voice=Voice(asker=client.name or client.client_id,
                            factor_lead=f"<p>To continue to <strong>{name}</strong>, confirm it is you.</p>",
                            goal=f"To continue to <strong>{name}</strong>", approved=f"<strong>{name}</strong>'s request"))
    admit = None if client.tenant_id else (lambda tenant_id: admission.self_registered(request, client, auth, tenant_id))
    return HandOff(tenant=tenant, back=back, acr_values=auth.acr_values, essential_acr=auth.essential_acr,
                   max_age=auth.max_age, prompt=auth.prompt, login_hint=auth.login_hint, hinted_sub=auth.hinted_sub,
                   code="offered", words=messages.SIGN_IN if client.tenant_id else messages.SIGN_IN_ORGANISATION,
                   admit=admit, client_id=client.client_id)


def posted(sealed: Sealed, csrf: str) -> Callable[[str], list[tuple[str, str]]]:
    """The state of the posted form's request for a form of any step: sealed again with that step, the same CSRF
    token (and the decision already made, where the step's form does not ask it again)."""
    def state(step: str) -> list[tuple[str, str]]:
        return [("request_blob", sealed.again(step)), ("csrf", csrf), *_decided(step)]
    return state


class Fresh:
    """A new form's state for a request validated now (a GET), sealed on its first use: a sign-in that needs no page
    seals nothing (and reads no sealing key). `cookie`: the Set-Cookie of a new browser binding, once sealed."""

    def __init__(self, request: Request, auth: AuthorizationRequest) -> None:
        self.request, self.auth = request, auth
        self.sealed: tuple[Sealed, str] | None = None
        self.cookie: str | None = None

    def __call__(self, step: str) -> list[tuple[str, str]]:
        if self.sealed is None:
            sealed, csrf, self.cookie = sealed_form.form_state(self.auth, step, self.request)
            self.sealed = sealed, csrf
        sealed, csrf = self.sealed
        return [("request_blob", sealed.again(step)), ("csrf", csrf), *_decided(step)]


def _decided(step: str) -> list[tuple[str, str]]:
    return [("decision", "approve")] if step in DECIDED else []


def resumed_request(auth: AuthorizationRequest, client: Client, tenant_id: str) -> AuthorizationRequest:
    """The request as it resumes after a person of `tenant_id` signed in: a self-registered client's request is
    that tenant's from now on (its code, its consent)."""
    return auth if client.tenant_id else auth._replace(tenant_id=tenant_id)
