"""An identity provider's answer to an upstream sign-in (docs/federation.md): the OpenID Connect callback and the
SAML Assertion Consumer Service, checked in their security order, then brought back to the flow's page.

1. The address's failed answers (limits.auth_failures, kind "upstream"): at the quota, 429 before anything else.
2. The browser and the pending sign-in: this browser's cookie (interaction.upstream_cookie) must open with the
   answer's `state` or RelayState (single_use.upstream_sign_ins): a sign-in an attacker started, sent to someone
   else's browser, stops here (login CSRF), as does an answer already accepted (the cookie is cleared then), an
   expired one, or a state nobody issued; so does an OpenID Connect answer at the ACS or a SAML one at the
   callback, or one for another tenant's ACS.
3. Single use: the cookie is cleared with the page that takes the answer on; the code is redeemed once at the IdP
   with this sign-in's PKCE verifier and its ID token must carry this sign-in's nonce; a SAML assertion's ID is
   accepted once.
4. The IdP: the one the pending sign-in went to, still offered for sign-in. Its answer is checked against that IdP
   alone (the mix-up defence: RFC 9207 `iss`, the ID token's issuer and audience, the assertion's issuer and
   signature), with the pending sign-in's secrets (state, nonce, PKCE verifier; InResponseTo), by its protocol
   (interaction.upstream_protocols: federation.oidc, federation.saml).
5. What the person's request asked: a fresh sign-in (prompt=login, ForceAuthn) must have happened after the
   sign-in started, and max_age must hold -- an IdP may ignore what it was asked; the answer says what it did.
Any refusal is a page with the code upstream_sign_in_failed (a person's browser is never sent anywhere the answer
names), one failed answer counted against the address, the reason logged. A sign-in that holds: the page that
posts the checked answer (a sealed ticket, interaction.upstream_ticket) and the flow's state to the flow's page,
where the upstream step resolves who the person is (interaction.upstream_answer). The upstream ID token goes on
sealed (federation.secrets.seal_id_token).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from authgate import clock
from authgate.audit import person
from authgate.errors import ApiError
from authgate.federation.errors import UpstreamRefused
from authgate.federation.secrets import seal_id_token
from authgate.interaction import (
    steps,
    upstream_cookie,
    upstream_pages,
    upstream_protocols,
    upstream_ticket,
)
from authgate.issuer import base_url
from authgate.limits.auth_failures import AuthFailureGuard
from authgate.logs import get_logger
from authgate.settings import get_settings
from authgate.single_use import upstream_sign_ins
from authgate.single_use.upstream_sign_ins import PendingInvalid, PendingSignIn
from authgate.stores.identity_provider_cache import trusted_idp
from authgate.stores.sealing_key import sealing_key

if TYPE_CHECKING:
    from authgate.federation.upstream import UpstreamIdentity
    from authgate.http.request import Request
    from authgate.http.response import Response

# What the page says, by what went wrong (the reason itself goes to the logs only).
STARTED_ELSEWHERE = ("This sign-in is unknown, was already completed, expired, or was started in another browser. "
                     "Go back to the application and start again.")
DENIED = "The sign-in at your identity provider did not complete: it was cancelled or refused there."
REFUSED = ("Your identity provider's answer could not be accepted. Go back to the application and start again; if "
           "it happens again, tell your organisation's administrator.")
NOT_FRESH = ("This application asked you to sign in again, and your identity provider's answer is of an earlier "
             "sign-in. Go back to the application and start again.")
_SAID = {"pending_invalid": STARTED_ELSEWHERE, "another_browser": STARTED_ELSEWHERE, "wrong_endpoint": STARTED_ELSEWHERE,
         "upstream_denied": DENIED, "not_fresh": NOT_FRESH, "max_age": NOT_FRESH,
         "max_age_exceeded": NOT_FRESH}
GUARD = "upstream"


def answered(request: Request, params: Mapping[str, str], *, saml_tenant: str | None = None) -> Response:
    """The answer `params` (the callback's query or form, or the ACS's form; `saml_tenant`: the ACS's tenant) checked
    (the module's steps), and the page that brings it back to the flow; ApiError upstream_sign_in_failed otherwise."""
    guard, address = AuthFailureGuard(GUARD), request.source_ip
    guard.gate(address, address)
    state = params.get("RelayState" if saml_tenant is not None else "state", "")
    key = sealing_key()
    # The tenant and IdP an OpenID Connect state this stack issued names (SAML's RelayState names none).
    named = None if saml_tenant is not None else upstream_sign_ins.named(key, state)
    pending: PendingSignIn | None = None
    try:
        pending = _pending(request, key, state, named)
        identity = _checked(request, params, pending, state, saml_tenant)
    except (PendingInvalid, UpstreamRefused) as refused:
        guard.record_failure(address, address)
        reason = refused.reason if isinstance(refused, UpstreamRefused) else "pending_invalid"
        detail = refused.internal if isinstance(refused, UpstreamRefused) else str(refused)
        get_logger().info("upstream sign-in refused", extra={"reason": reason, "detail": detail[:300]})
        # Nobody is named yet: the trail's target is "unknown" (the tenant and IdP when the sign-in was found).
        tenant_id, idp_id = (pending.tenant_id, pending.idp_id) if pending else named or ("", "")
        person.refused(tenant_id, "", reason, method="identity_provider", idp=idp_id)
        raise ApiError("upstream_sign_in_failed", _SAID.get(reason, REFUSED), internal=f"{reason}: {detail[:300]}") \
            from None
    kept = identity._replace(id_token=seal_id_token(identity.tenant_id, identity.issuer, identity.subject,
                                                    identity.id_token))
    ticket = upstream_ticket.Ticket(kept, pending.idp_id, pending.protocol, pending.second_factor,
                                    pending.notes or {})
    sealed = upstream_ticket.sealed("signed", ticket, steps.csrf_of(pending.fields))
    get_logger().info("upstream sign-in answered", extra={"tenant": pending.tenant_id, "idp": pending.idp_id,
                                                          "protocol": pending.protocol})
    back = upstream_pages.back_to_flow(request, pending.action, pending.fields, sealed, pending.leads_to)
    back.multi_headers["Set-Cookie"] = [upstream_cookie.cleared(request)]
    return back


def _pending(request: Request, key: bytes, state: str, named: tuple[str, str] | None) -> PendingSignIn:
    """Step 2 of the module's docstring: the pending sign-in this browser's cookie holds for `state`. A state this
    stack issued (`named`) whose cookie is not here (another browser, or its answer accepted already) is
    `another_browser`; any other, PendingInvalid."""
    try:
        return upstream_sign_ins.opened(key, upstream_cookie.sealed(request), state)
    except PendingInvalid:
        if named is None:
            raise
        raise UpstreamRefused("another_browser", "no cookie of this sign-in in this browser") from None


def _checked(request: Request, params: Mapping[str, str], pending: PendingSignIn, state: str,
             saml_tenant: str | None) -> UpstreamIdentity:
    """Steps 2 (after the cookie opened) to 5 of the module's docstring: who the pending sign-in's IdP says signed
    in."""
    at_acs = saml_tenant is not None
    if (pending.protocol == "saml") != at_acs or (at_acs and pending.tenant_id != saml_tenant):
        raise UpstreamRefused("wrong_endpoint", f"a {pending.protocol} sign-in's answer at the "
                                                f"{'ACS' if at_acs else 'callback'}")
    idp = trusted_idp(pending.tenant_id, pending.issuer)
    if idp is None or not idp.sign_in or (idp.idp_id, idp.protocol) != (pending.idp_id, pending.protocol):
        raise UpstreamRefused("idp_gone", f"{pending.issuer[:200]!r} is no longer offered for sign-in")
    identity = upstream_protocols.answer(idp, base_url(request), pending, state, params)
    _as_asked(pending, identity)
    return identity


def _as_asked(pending: PendingSignIn, identity: UpstreamIdentity) -> None:
    """A fresh sign-in happened after the request (prompt=login, ForceAuthn), and within max_age: IdPs may ignore
    what they were asked (OpenID Connect Core 3.1.2.1; SAML Core 3.4.1 ForceAuthn)."""
    leeway, now = get_settings().leeway, clock.seconds()
    if pending.fresh and identity.auth_time < pending.started - leeway:
        raise UpstreamRefused("not_fresh", "the IdP's sign-in is older than the request that asked for a new one")
    if pending.max_age is not None and (not identity.auth_time or now - identity.auth_time > pending.max_age + leeway):
        raise UpstreamRefused("max_age", f"the IdP's sign-in is older than max_age {pending.max_age}")
