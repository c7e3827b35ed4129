"""A posted step's reads at the authorization endpoint, in ONE BatchGetItem (stores.batch): the second-factor step's
(docs/strong-authentication.md, "What a second factor costs": the client, its tenant, the browser's session and the
user's item its sealed ticket names, interaction.second_factor.opened), and a federated sign-in's (docs/federation.md,
"What it costs": the client and its tenant as the button is pressed; with them, as the IdP's answer comes back, the
link of the identity its ticket names, interaction.upstream_ticket). What they hold is judged later: the client and
tenant by the endpoint's checks, the session, the user's item and the link by the interaction's step."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from authgate.http.request import Request
from authgate.interaction import second_factor, session_cookie, steps, upstream_ticket
from authgate.interaction.sessions import live_session
from authgate.oauth.authorization.request import AuthorizationRequest
from authgate.oauth.clients.lookup import ClientLookup
from authgate.sessions.model import Session, hash_secret
from authgate.stores.batch import BatchRead, Pending
from authgate.stores.linked_identities import LinkedIdentityStore
from authgate.stores.sessions import SessionStore
from authgate.stores.tenants import TenantStore
from authgate.stores.users import UserStore


def batched(step: str, fields: Mapping[str, str]) -> bool:
    """Whether a posted step's reads ride on one BatchGetItem: the second factor's, an IdP's answer brought back,
    and the sign-in form's "Sign in with <IdP>" button."""
    return step in (steps.FACTOR, steps.UPSTREAM) or (step == steps.PASSWORD and "upstream" in fields)


class StepReads(NamedTuple):
    """What a posted step's ONE BatchGetItem read (`step_reads`): the client, its tenant as the request named it,
    and the session and user the ticket names (None: not read, the ticket did not open or is not this browser's)."""

    client: Pending | None
    tenant: Pending | None
    session: Pending | None
    user: Pending | None
    # An identity provider's answer brought back (the upstream step): the link of the identity its ticket names.
    link: Pending | None = None


def step_reads(request: Request, fields: Mapping[str, str], auth: AuthorizationRequest,
               lookup: ClientLookup) -> StepReads:
    """The reads of a posted step in one BatchGetItem (stores.batch): the client (through the endpoint's `lookup`),
    its tenant, the browser's session and its user's item, whose keys the sealed ticket carries; what they hold is
    judged later."""
    reads = BatchRead(operation="second_factor.batch_get")
    client = lookup.prefetch(reads, auth.client_id)
    tenant = TenantStore().prefetch(reads, auth.tenant_id) if auth.tenant_id else None
    session = user = link = None
    ticket = upstream_ticket.opened("signed", fields.get("upstream_ticket", ""), fields.get("csrf", ""))
    if ticket is not None:
        identity = ticket.identity
        link = LinkedIdentityStore().prefetch(reads, identity.tenant_id, identity.issuer, identity.subject)
    secret = session_cookie.secret_from(request)
    state = second_factor.opened(fields.get("factor_ticket", ""))
    if secret is not None and state is not None and state.get("h") == hash_secret(secret):
        session = SessionStore().prefetch(reads, secret)
        user = UserStore().prefetch(reads, str(state.get("t") or ""), str(state.get("u") or ""))
    reads.run()
    return StepReads(client, tenant, session, user, link)


def session_of(request: Request, reads: StepReads | None = None) -> Session | None:
    """The browser's live session whatever its tenant (a self-registered client's step has no tenant to ask), as
    `reads` found it when they read it."""
    if reads is not None and reads.session is not None:
        return SessionStore.found_live(reads.session.item)
    return live_session(request)
