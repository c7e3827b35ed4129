"""How a step that found the person ends, whatever proved them (a password, a passkey, a forced change, an upstream
identity provider): the id_token_hint's person, the flow's admission of their tenant, the session, and the
second factor the hand-off still asks.

In that order: OpenID Connect Core 3.1.2.1 (id_token_hint): "If the End-User identified by the ID Token is not
the one logged in or is not logged in by the request, ... it SHOULD return an error, such as login_required" --
whatever signed the person in, nothing is opened for someone else than the hint names (node-oidc-provider
likewise never completes a request whose id_token_hint names someone else). Then the flow's admission of the
person's tenant (a self-registered client's: `HandOff.admit`), before any session exists. Then the session
(interaction.sessions), at the level the step proved; and, when the hand-off asks for more than that
(interaction.second_factor.missing), the second-factor step's page, with the new session's cookie.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate import clock
from authgate.assurance import PASSWORD, PASSWORD_AMR
from authgate.audit import person
from authgate.errors import ApiError
from authgate.http.response import Response
from authgate.interaction import passkey_page, second_factor, second_factor_page, sessions
from authgate.interaction.handoff import Authentication

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.interaction.handoff import HandOff
    from authgate.sessions.model import Upstream
    from authgate.users.model import LoginResult

# OpenID Connect Core 3.1.2.1 (id_token_hint): the person who signed in is not the one the client expects.
HINT_MISMATCH = "The person who signed in is not the one the id_token_hint names."


def hinted_person(handoff: HandOff, user_id: str) -> None:
    """login_required when the hand-off names another person (its id_token_hint's `sub`). login_hint stays a hint
    (OIDC Core 3.1.2.1): it fills the username field and decides nothing."""
    if handoff.hinted_sub is not None and user_id != handoff.hinted_sub:
        handoff.back.log("login_required")
        raise ApiError("login_required", HINT_MISMATCH)


def finish(request: Request, handoff: HandOff, tenant_id: str, result: LoginResult, *, acr: str = PASSWORD,
           amr: tuple[str, ...] = PASSWORD_AMR, auth_time: int | None = None,
           upstream: Upstream | None = None) -> Authentication | Response:
    """The end of a step that proved `result`'s person of `tenant_id` at `acr`/`amr`: see the module's docstring.
    `auth_time`: when the person authenticated, when not now (at an upstream IdP); `upstream`: the IdP's sign-in
    the session is opened by (sessions.model.Upstream)."""
    hinted_person(handoff, result.user_id)
    if handoff.admit is not None:
        handoff.admit(tenant_id)
    signed = Authentication(tenant_id=tenant_id, user_id=result.user_id, username=result.subject, acr=acr, amr=amr,
                            auth_time=clock.seconds() if auth_time is None else auth_time,
                            generation=result.generation, notes=handoff.back.notes, upstream=upstream)
    person.signed_in(tenant_id, signed.user_id, signed.username, acr, amr, handoff.client_id,
                     **({"method": "identity_provider", "idp": upstream.idp_id} if upstream is not None else {}))
    if not handoff.session:
        return signed
    signed = sessions.opened(request, signed)
    assert signed.session is not None and signed.cookie is not None
    step = second_factor.missing(handoff, signed.session, result.totp, result.passkeys,
                                 usable=lambda: passkey_page.relying_party(request) is not None)
    if step is None:
        return signed
    page = second_factor_page.page(request, handoff, kind=step, session=signed.session,
                                   passkeys=passkey_page.relying_party(request) is not None, held=result.passkeys)
    page.multi_headers["Set-Cookie"] = [signed.cookie]
    return page
