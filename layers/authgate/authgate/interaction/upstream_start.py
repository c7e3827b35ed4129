"""The `upstream` step, where it starts: a person sets out to sign in at one of their tenant's identity providers
(docs/federation.md).

The sign-in form offers a button per IdP the tenant offers (identity_providers.sign_in_options,
interaction.sign_in_fields): `chosen`. An email typed with no password whose domain an IdP claims goes straight
there (home-realm discovery): `discovered`, called by the password step before it asks for the password. The
tenant is the hand-off's, or for a person who names their organisation (a self-registered client, the account
page) the one the password step would find (interaction.sign_in.tenant_of); an address no IdP claims gets the
answer it always got. `start` keeps the pending sign-in in this browser's cookie (single_use.upstream_sign_ins: the IdP, the
request's secrets, what the person's request asked -- max_age, prompt=login, a second factor -- and the flow's
state) and sends the person to the IdP. Its answer comes back through interaction.upstream_answer.

Step-up. When the request needs `mfa` (interaction.second_factor.required) and the IdP's word does not give it,
the record's `step_up` decides: "local" -- authgate's own second factor, as after a password; "upstream" -- back
to the IdP asking for one (acr_values, RequestedAuthnContext of its `mfa_values`), once. A session opened by such
an IdP that a later request finds too weak goes back the same way (`step_up`).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import TYPE_CHECKING

from authgate import clock
from authgate.assurance import MFA, satisfies
from authgate.errors import ApiError
from authgate.federation.errors import UpstreamRefused
from authgate.http.response import Response
from authgate.identity_providers.sign_in_options import SignInOption, by_id, for_email
from authgate.interaction import (
    second_factor,
    steps,
    upstream_cookie,
    upstream_pages,
    upstream_protocols,
)
from authgate.interaction.handoff import Again
from authgate.interaction.messages import UNMET_UPSTREAM, UPSTREAM_UNAVAILABLE
from authgate.interaction.sign_in import tenant_of
from authgate.issuer import base_url
from authgate.logs import get_logger
from authgate.single_use.upstream_sign_ins import PendingSignIn, new_state, sealed
from authgate.stores.identity_provider_cache import sign_in_options, trusted_idp
from authgate.stores.sealing_key import sealing_key
from authgate.stores.tenants import TenantStore
from authgate.tenants.model import Tenant

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.identity_providers.model import IdentityProvider
    from authgate.interaction.handoff import HandOff
    from authgate.sessions.model import Session

# The longest email and organisation a discovery reads (as the password step: RFC 5321 4.5.3.1).
MAX_USERNAME = 320
MAX_TENANT = 100


def chosen(request: Request, handoff: HandOff, fields: Mapping[str, str]) -> Response | Again:
    """The sign-in form's "Sign in with <IdP>" button (field `upstream`: the IdP's id among the tenant's options)."""
    tenant_id = handoff.tenant.tenant_id
    option = by_id(sign_in_options(tenant_id), fields.get("upstream", ""))
    if option is None:
        handoff.back.log("upstream_unknown")
        return Again(UPSTREAM_UNAVAILABLE)
    return start(request, handoff, tenant_id, option)


def discovered(request: Request, handoff: HandOff, fields: Mapping[str, str]) -> Response | Again | None:
    """Home-realm discovery: the IdP whose domains claim the email typed as the username (no password given), or
    None when none does (the password step answers as it would have)."""
    if handoff.username:
        return None
    email = fields.get("username", "").strip()[:MAX_USERNAME]
    if "@" not in email:
        return None
    typed = "" if handoff.tenant.tenant_id else fields.get("tenant", "").strip()[:MAX_TENANT]
    tenant_id = tenant_of(handoff.tenant.tenant_id, typed, email)
    option = for_email(sign_in_options(tenant_id), email)
    if option is None:
        return None
    return start(request, handoff, tenant_id, option, login_hint=email)


def start(request: Request, handoff: HandOff, tenant_id: str, option: SignInOption, *, login_hint: str | None = None,
          asked_second_factor: bool = False) -> Response | Again:
    """Send the person to `option`'s IdP: the page that goes on there, keeping the pending sign-in in this browser
    (its cookie, interaction.upstream_cookie; no write)."""
    idp = trusted_idp(tenant_id, option.issuer)
    if idp is None or not offered(idp, option.idp_id, option.protocol):
        handoff.back.log("upstream_unavailable")
        return Again(UPSTREAM_UNAVAILABLE)
    oidc = idp.protocol == "oidc"
    pending = PendingSignIn(
        tenant_id=idp.tenant_id, issuer=idp.issuer, idp_id=idp.idp_id, protocol=idp.protocol,
        started=clock.seconds(), nonce=secrets.token_urlsafe(24) if oidc else "",
        code_verifier=secrets.token_urlsafe(48) if oidc else "", max_age=handoff.max_age,
        fresh="login" in handoff.prompt.split(), second_factor=asked_second_factor, action=handoff.back.action,
        fields=tuple(handoff.back.state(steps.UPSTREAM)), leads_to=handoff.back.leads_to,
        notes=dict(handoff.back.notes))
    key = sealing_key()
    state = new_state(key, idp.tenant_id, idp.idp_id, idp.protocol)
    try:
        url, request_id = upstream_protocols.request_url(idp, base_url(request), pending, state, login_hint)
        cookie = upstream_cookie.kept(request, sealed(key, pending._replace(request_id=request_id), state))
    except (UpstreamRefused, upstream_cookie.TooLarge) as refused:
        reason, detail = (refused.reason, refused.internal) if isinstance(refused, UpstreamRefused) else (
            "too_large", str(refused))
        get_logger().warning("upstream sign-in not started", extra={"reason": reason, "detail": detail})
        handoff.back.log("upstream_unavailable")
        return Again(UPSTREAM_UNAVAILABLE)
    handoff.back.log("upstream_started")
    return upstream_pages.onward(idp.label or idp.idp_id, url, cookie)


def step_up(request: Request, handoff: HandOff, session: Session) -> Response | None:
    """Back to the IdP for a second factor: for a session its sign-in opened, below the `mfa` the hand-off needs,
    when the IdP's record says so (`step_up` "upstream"); None otherwise (authgate's own second factor, if any)."""
    upstream = session.upstream
    if upstream is None or satisfies(session.acr, MFA):
        return None
    tenant = handoff.tenant if handoff.tenant.tenant_id else TenantStore().get(session.tenant_id) or Tenant("")
    if second_factor.required(handoff, tenant)[0] != MFA:
        return None
    idp = trusted_idp(session.tenant_id, upstream.issuer)
    if idp is None or idp.step_up != "upstream" or not offered(idp, upstream.idp_id, upstream.protocol):
        return None
    if handoff.prompt == "none":
        handoff.back.log("login_required")
        raise second_factor.refuse_prompt_none("code")
    option = SignInOption(idp.idp_id, idp.label or idp.idp_id, idp.issuer, idp.protocol, idp.domains)
    started = start(request, handoff, session.tenant_id, option, asked_second_factor=True)
    if isinstance(started, Again):
        raise ApiError("unmet_authentication_requirements", UNMET_UPSTREAM)
    return started


def offered(idp: IdentityProvider, idp_id: str, protocol: str) -> bool:
    """Whether `idp` is still offered for sign-in as the IdP of that id and protocol (OIDC or SAML)."""
    return idp.sign_in and (idp.idp_id, idp.protocol) == (idp_id, protocol) and protocol in ("oidc", "saml")
