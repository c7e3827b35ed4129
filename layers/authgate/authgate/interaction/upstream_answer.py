"""The `upstream` step, how it comes back: the identity provider's answer resolved to a person here
(docs/federation.md). Where it starts is interaction.upstream_start.

The IdP answers at the callback (interaction.upstream_callback), which checks the answer and brings it back to the
flow's page as this step (a ticket, interaction.upstream_ticket): `signed_in` resolves who the person is here
(federation.identities): an account linked to that identity, one linked now through a trusted verified email, one
provisioned just now -- the person is signed in; an account that claims the email and is not linked -- the link
page asks the person to prove that account (`linked`: its password, through every throttle of a sign-in, or its
passkey; never naming it); nobody, or a disabled account -- the sign-in form again, with one message for both. A
sign-in ends as every step ends (interaction.outcome), with the assurance the IdP's record allows
(federation.assurance: `mfa` only from an IdP trusted for it), when the person authenticated there, and the IdP's
sign-in kept with the session (sessions.model.Upstream: for sign-out).

Step-up. When the request needs `mfa` and the IdP's word does not give it, an IdP whose record's `step_up` is
"upstream" is asked once more (upstream_start.start); what it answers then is final (an essential acr it did not
meet is unmet_authentication_requirements).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from authgate import clock
from authgate.assurance import MFA
from authgate.audit import person
from authgate.errors import ApiError
from authgate.federation import assurance, identities
from authgate.federation.errors import UpstreamRefused
from authgate.http.response import Response
from authgate.identity_providers.sign_in_options import SignInOption
from authgate.interaction import (
    outcome,
    passkey_page,
    passkey_sign_in,
    second_factor,
    steps,
    upstream_pages,
    upstream_ticket,
)
from authgate.interaction.handoff import Again, Authentication
from authgate.interaction.messages import (
    LINK_PASSKEY_REFUSED,
    LINK_WRONG,
    UNMET_UPSTREAM,
    UPSTREAM_ENDED,
    UPSTREAM_NOT_ALLOWED,
    UPSTREAM_UNAVAILABLE,
)
from authgate.interaction.sign_in import account_of, sign_in
from authgate.interaction.upstream_start import MAX_USERNAME, offered, start
from authgate.sessions.model import Upstream
from authgate.stores.identity_provider_cache import trusted_idp
from authgate.stores.tenants import TenantStore
from authgate.stores.users import UserStore
from authgate.tenants.model import Tenant
from authgate.users.errors import LinkRefused
from authgate.users.model import LoginResult

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.identity_providers.model import IdentityProvider
    from authgate.interaction.handoff import HandOff
    from authgate.users.linked_identities import LinkedIdentity
    from authgate.users.model import User

Outcome = Authentication | Again | Response


def signed_in(request: Request, handoff: HandOff, fields: Mapping[str, str],
              link: tuple[LinkedIdentity | None] | None = None) -> Outcome:
    """The IdP's checked answer, brought back to the flow's page (its ticket): the person signed in, the link page,
    or the sign-in form again (see the module's docstring). `link`: the identity's link as the request's batch read
    found it (None: not read)."""
    opened = _opened("signed", handoff, fields)
    if isinstance(opened, Again):
        return opened
    ticket, idp, handoff = opened
    try:
        resolution = identities.resolve(idp, ticket.identity, link)
    except UpstreamRefused as refused:
        return _refused(handoff, idp, refused.reason)
    if resolution.signs_in and resolution.user is not None:
        _recorded(handoff, idp, resolution)
        return _finish(request, handoff, idp, ticket, resolution.user)
    account = resolution.user
    if resolution.outcome == identities.LINK_REQUIRED and account is not None and not account.disabled:
        return _link_page(request, handoff, idp, ticket._replace(account=(account.user_id, account.username)))
    named = resolution.link or account
    return _refused(handoff, idp, resolution.reason or "several_accounts", *((named.user_id, named.username)
                                                                          if named is not None else ()))


def linked(request: Request, handoff: HandOff, fields: Mapping[str, str]) -> Outcome:
    """The link page posted: the account proved (its password, or one of its passkeys), the identity linked to it,
    the person signed in; the page again otherwise."""
    opened = _opened("link", handoff, fields)
    if isinstance(opened, Again):
        return opened
    ticket, idp, handoff = opened
    user_id, username = ticket.account
    tenant_id = idp.tenant_id
    if fields.get("use") == "passkey":
        options = passkey_sign_in.own_options(request, tenant_id, username)
        if options is None:
            return _link_page(request, handoff, idp, ticket, LINK_PASSKEY_REFUSED)
        back = handoff.back
        return passkey_page.render(
            title=upstream_pages.LINK_TITLE, options=options, ceremony="get", action=back.action,
            fields=steps.hidden(back.state(steps.LINK), [("link_ticket", fields.get("link_ticket", ""))]),
            intro="<p>Confirm it is your account with one of its passkeys: your browser or device will ask you to "
                  "unlock it.</p>", button="Use a passkey", form_action=back.leads_to)
    if fields.get("credential"):
        if passkey_sign_in.of_person(request, tenant_id, username, fields["credential"]) is None:
            handoff.back.log("link_refused")
            return _link_page(request, handoff, idp, ticket, LINK_PASSKEY_REFUSED)
    else:
        typed, password = fields.get("username", "").strip()[:MAX_USERNAME], fields.get("password", "")
        named = account_of(tenant_id, "", typed)[1] if typed and password else ""
        result = sign_in(tenant_id, named, password, request.source_ip) if named else None
        # The proof must be of the account that claims the email, whichever account the person knows.
        if result is None or not result.ok or result.user_id != user_id:
            handoff.back.log("link_refused")
            return _link_page(request, handoff, idp, ticket, LINK_WRONG)
    try:
        identities.link(tenant_id, user_id, idp, ticket.identity, username=username)
    except (LinkRefused, UpstreamRefused):
        return _refused(handoff, idp, "link_refused", user_id, username)
    person.acted("identity.linked", tenant_id, user_id, username, idp=idp.idp_id, issuer=idp.issuer, by="proof")
    user = UserStore().get(tenant_id, username)
    if user is None or user.user_id != user_id or user.disabled:
        return _refused(handoff, idp, identities.DISABLED, user_id, username)
    return _finish(request, handoff, idp, ticket, user)


def _finish(request: Request, handoff: HandOff, idp: IdentityProvider, ticket: upstream_ticket.Ticket,
            user: User) -> Outcome:
    """The person is `user`: the session at the assurance the IdP's record allows, or the IdP asked again for a
    second factor (step_up "upstream"), then the end of every step (interaction.outcome)."""
    identity = ticket.identity
    said = assurance.federated_sign_in(idp, identity, clock.seconds())
    tenant = handoff.tenant if handoff.tenant.tenant_id else TenantStore().get(idp.tenant_id) or Tenant(idp.tenant_id)
    needed, essential = second_factor.required(handoff, tenant)
    if needed == MFA and said.acr != MFA and idp.step_up == "upstream":
        if not ticket.second_factor:
            option = SignInOption(idp.idp_id, idp.label or idp.idp_id, idp.issuer, idp.protocol, idp.domains)
            return start(request, handoff, idp.tenant_id, option, asked_second_factor=True)
        if essential:
            handoff.back.log("upstream_mfa_unmet")
            raise ApiError("unmet_authentication_requirements", UNMET_UPSTREAM)
        # Voluntary (OIDC Core 5.5.1.1): the sign-in stays at what the IdP gave; no step of authgate's own.
        handoff = handoff._replace(acr_values=())
    result = LoginResult(True, "ok", subject=user.username, user_id=user.user_id, generation=user.session_generation)
    kept = Upstream(issuer=idp.issuer, idp_id=idp.idp_id, protocol=idp.protocol, subject=identity.subject,
                    sid=identity.session_id, name_id=identity.subject if idp.protocol == "saml" else "",
                    id_token=identity.id_token)
    handoff.back.log(f"upstream_{ticket.protocol}")
    return outcome.finish(request, handoff, idp.tenant_id, result, acr=said.acr, amr=said.amr,
                          auth_time=said.auth_time, upstream=kept)


def _link_page(request: Request, handoff: HandOff, idp: IdentityProvider, ticket: upstream_ticket.Ticket,
               message: str = "") -> Response:
    """The link page for `ticket`'s account (a new link ticket, bound to the page's form)."""
    csrf = steps.csrf_of(handoff.back.state(steps.LINK))
    handoff.back.log("upstream_link_required")
    return upstream_pages.link_page(handoff, ticket=upstream_ticket.sealed("link", ticket, csrf),
                                    email=ticket.identity.email, label=idp.label or idp.idp_id, message=message,
                                    passkeys=passkey_page.relying_party(request) is not None)


def _opened(kind: upstream_ticket.Kind, handoff: HandOff,
            fields: Mapping[str, str]) -> tuple[upstream_ticket.Ticket, IdentityProvider, HandOff] | Again:
    """The ticket of `kind` the form posted (field `upstream_ticket` or `link_ticket`), its IdP, and the hand-off
    with the flow's notes it carried; the sign-in form again when it does not open or its IdP is gone."""
    field = "upstream_ticket" if kind == "signed" else "link_ticket"
    ticket = upstream_ticket.opened(kind, fields.get(field, ""), fields.get("csrf", ""))
    if ticket is None:
        handoff.back.log("upstream_step_invalid")
        return Again(UPSTREAM_ENDED)
    idp = _idp_of(handoff, ticket)
    if idp is None:
        return Again(UPSTREAM_UNAVAILABLE)
    return ticket, idp, handoff._replace(back=handoff.back._replace(notes=ticket.notes))


def _idp_of(handoff: HandOff, ticket: upstream_ticket.Ticket) -> IdentityProvider | None:
    """The IdP a ticket names, while it is still offered for sign-in, of the hand-off's tenant when it has one."""
    identity = ticket.identity
    idp = trusted_idp(identity.tenant_id, identity.issuer)
    if idp is None or not offered(idp, ticket.idp_id, ticket.protocol) or (
            handoff.tenant.tenant_id not in ("", idp.tenant_id)):
        handoff.back.log("upstream_unavailable")
        return None
    return idp


def _recorded(handoff: HandOff, idp: IdentityProvider, resolution: identities.Resolution) -> None:
    """The audit trail's events of a resolution that signs in and changed something: a person provisioned (their
    account and its link), or linked by an email the IdP is trusted for (docs/audit.md)."""
    user = resolution.user
    if user is None or resolution.outcome == identities.SIGNED_IN:
        return
    tenant_id, by = idp.tenant_id, "provisioning" if resolution.outcome == identities.PROVISIONED else "trusted_email"
    if resolution.outcome == identities.PROVISIONED:
        person.acted("user.created", tenant_id, user.user_id, user.username, by="identity_provider", idp=idp.idp_id,
                     client_id=handoff.client_id)
    person.acted("identity.linked", tenant_id, user.user_id, user.username, idp=idp.idp_id, issuer=idp.issuer, by=by)


def _refused(handoff: HandOff, idp: IdentityProvider, reason: str, user_id: str = "", username: str = "") -> Again:
    """The sign-in form again: nobody here for that identity, or a disabled account (one message for both); the
    audit trail's signin.failed with the reason (the account, when one was found)."""
    handoff.back.log(f"upstream_refused_{reason}")
    person.refused(idp.tenant_id, username, reason, user_id, method="identity_provider", client_id=handoff.client_id,
                   idp=idp.idp_id)
    return Again(UPSTREAM_NOT_ALLOWED)
