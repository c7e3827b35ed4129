"""GET and POST /oauth/logout: the end_session_endpoint (OpenID Connect RP-Initiated Logout 1.0).

The steps, in their security order:
1. the parameters (query or form), each at most once: id_token_hint, logout_hint, client_id,
   post_logout_redirect_uri, state, ui_locales (ignored);
2. id_token_hint, if sent, must be an ID token this issuer signed (id_token_hint.verified_hint;
   expired is fine, section 4); its `aud` names the client, and a client_id that differs is refused;
3. post_logout_redirect_uri must match one the client registered, character for character
   (section 3): with no client named, or a URI not registered, nothing is redirected: a page;
4. the session of this browser: when the hint names it (its sid, or its user), it ends at once;
   otherwise the person confirms on a page first (section 2: the OP SHOULD ask, or a third party
   could sign anyone out), its form bound to this browser like the sign-in form (CSRF);
5. the session ends (its item deleted, its cookie cleared) with the grants made in it, but those
   with offline_access (OpenID Connect Core 11: their tokens and refresh families are revoked),
   and a logout token is queued for each of its clients that registered a backchannel_logout_uri
   (Back-Channel Logout 1.0 2.5: deliveries.backchannel_logout; oauth.logout.ending), then the
   redirect to the registered URI with `state`, or the "signed out" page;
6. whether the redirect is followed: an administrator's registration vouches for its URIs; a
   self-registered client's (dynamic registration, a metadata document) were chosen by whoever
   registered it, so it is sent back only when its id_token_hint names the session this request
   ended: the person signed in to that application here. Section 3: without a hint "the OP MUST
   NOT perform post-logout redirection unless the OP has other means of confirming the
   legitimacy of the post-logout redirection target", and a hint alone proves nothing of this
   browser (the registrant can send its own). Otherwise the "signed out" page offers the URI as a
   link, naming its origin, for the person to follow or not (RFC 9700 4.11.2);
7. a session an upstream identity provider opened (Session.upstream) ends there too, after
   authgate's own has ended: the browser goes to the IdP's end-session endpoint or Single Logout
   service and comes back to authgate, which then finishes as step 6 says (oauth.logout.upstream).

Errors are pages (the "authorize" surface, never redirected): a sign-out request that fails its
checks must not send the browser anywhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from authgate.clients.model import Client
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.http.shapes.oauth import with_query
from authgate.interaction import session_cookie
from authgate.interaction.binding import (
    binding_cookie,
    binding_from,
    csrf_matches,
    csrf_token,
    new_binding,
)
from authgate.issuer import base_url
from authgate.logs import get_logger
from authgate.oauth.logout import ending, pages, upstream
from authgate.oauth.token.id_token_hint import verified_hint
from authgate.sessions.model import Session
from authgate.stores.clients import ClientStore
from authgate.stores.sessions import SessionStore

PARAMETERS = ("id_token_hint", "logout_hint", "client_id", "post_logout_redirect_uri", "state", "ui_locales")
FORM_TYPE = "application/x-www-form-urlencoded"


def logout(request: Request) -> Response:
    """RP-Initiated Logout 1.0 sections 2-3 (GET and POST)."""
    params, posted = _parameters(request)
    issuer = base_url(request)
    hint = _hint(params.get("id_token_hint"), issuer)
    client_id = _client_id(params.get("client_id"), hint)
    uri = params.get("post_logout_redirect_uri")
    # Read only when a redirect URI is to be checked (or, below, named on the confirmation page).
    client = ClientStore().get(client_id) if client_id and uri is not None else None
    redirect_uri = _trusted_redirect(uri, client_id, client)
    secret = session_cookie.secret_from(request)
    session = SessionStore().live(secret) if secret else None
    named = session is not None and _named_by(hint, session)
    if session is not None and not named and not _confirmed(request, posted, session):
        if client is None and client_id:
            client = ClientStore().get(client_id)
        return _confirmation(request, params, session, client)
    onward = pages.Onward(_location(redirect_uri, params.get("state")), _vouched_for(client, named))
    if session is not None:
        ending.end([session], issuer, "signed out", client_id=client_id or "")
        get_logger().info("logout", extra={"sid": session.sid, "tenant": session.tenant_id,
                                           "client_id": client_id or ""})
    # Step 7: a session an upstream IdP opened ends there too, and the sign-out finishes when the browser is back.
    response = upstream.leave(request, session, onward) if session is not None and session.upstream is not None \
        else pages.ended(onward)
    if secret is not None:
        response.multi_headers.setdefault("Set-Cookie", []).insert(0, session_cookie.clear_cookie(issuer))
    return response


def _parameters(request: Request) -> tuple[dict[str, str], dict[str, str]]:
    """(the logout parameters, every posted field): from the query on GET, the form on POST; each once."""
    if request.method == "POST":
        if request.content_type != FORM_TYPE:
            raise ApiError("invalid_request", "A sign-out request must be posted as application/x-www-form-urlencoded.")
        values: dict[str, list[str]] = {}
        for name, value in request.form():
            if not name or "%" in name:  # an empty name, or a percent-escape that decodes to nothing
                raise ApiError("invalid_request", "The form body is not valid application/x-www-form-urlencoded.")
            values.setdefault(name, []).append(value)
        source: Mapping[str, Sequence[str]] = values
    else:
        source = request.query
    out: dict[str, str] = {}
    for name, given in source.items():
        if len(given) > 1:
            raise ApiError("invalid_request", f"The {name} parameter is repeated.")
        if given and given[0] != "":
            out[name] = given[0]
    return {k: v for k, v in out.items() if k in PARAMETERS}, out


def _hint(token: str | None, issuer: str) -> dict[str, Any] | None:
    if token is None:
        return None
    claims = verified_hint(token, issuer)
    if claims is None:
        raise ApiError("invalid_request", "The id_token_hint is not an ID token this server issued.")
    return claims


def _client_id(sent: str | None, hint: dict[str, Any] | None) -> str | None:
    """The client asking: client_id, or the hint's audience; both must agree (section 2)."""
    if hint is not None and sent is not None and sent != hint["aud"]:
        raise ApiError("invalid_request", "The client_id is not the audience of the id_token_hint.")
    return sent if sent is not None else hint["aud"] if hint is not None else None


def _trusted_redirect(uri: str | None, client_id: str | None, client: Client | None) -> str | None:
    """post_logout_redirect_uri, exactly as the client registered it (section 3), or a page."""
    if uri is None:
        return None
    if client_id is None:
        raise ApiError("invalid_request", "post_logout_redirect_uri needs client_id or id_token_hint to say which "
                                          "application it belongs to.")
    if client is None or uri not in client.post_logout_redirect_uris:
        raise ApiError("invalid_request", "The post_logout_redirect_uri is not registered for this client.")
    return uri


def _named_by(hint: dict[str, Any] | None, session: Session) -> bool:
    """The hint is of this session, or of its user: the request comes from an application the person signed in to."""
    return hint is not None and (hint.get("sid") == session.sid or hint["sub"] == session.user_id)


def _vouched_for(client: Client | None, named: bool) -> bool:
    """Step 6: an administrator registered the client, or its hint `named` the session this request ends."""
    return client is not None and (not client.source or named)


def _confirmed(request: Request, posted: dict[str, str], session: Session) -> bool:
    """The person chose "Sign out" on the confirmation page shown in this browser, for this session."""
    binding = binding_from(request)
    if request.method != "POST" or posted.get("confirm") != "yes" or binding is None:
        return False
    return csrf_matches(posted.get("csrf"), binding, f"logout|{session.sid}")


def _confirmation(request: Request, params: dict[str, str], session: Session, client: Client | None) -> Response:
    binding = binding_from(request)
    fresh = binding is None
    if binding is None:
        binding = new_binding()
    hidden = [*sorted(params.items()), ("csrf", csrf_token(binding, f"logout|{session.sid}"))]
    response = pages.confirm(session.username, client.name if client else "", hidden)
    if fresh:
        response.multi_headers["Set-Cookie"] = [
            binding_cookie(binding, base_url(request))]
    return response


def _location(redirect_uri: str | None, state: str | None) -> str:
    """`redirect_uri` with `state` (section 3), or "" (the "signed out" page)."""
    if redirect_uri is None:
        return ""
    return with_query(redirect_uri, [("state", state)] if state is not None else [])
