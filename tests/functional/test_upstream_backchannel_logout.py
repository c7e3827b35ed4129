"""POST /oauth/federation/{tenant}/{idp_id}/backchannel-logout: an upstream OpenID Provider ends the sessions it opened.

The provider is scripted (tests/upstream_oidc.py: joserfc signs its logout tokens); the sessions are
made as a federated sign-in makes them; authgate's own back-channel logouts to its clients are
read from moto's queue. Every answer is asserted whole (OpenID Connect Back-Channel Logout 1.0 2.8).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from authgate.clock import ManualClock
from authgate_cli.local.events import HttpRequest, build_event
from tests.conftest import START
from tests.demo import ISSUER
from tests.document_server import DocumentServer
from tests.functional.authorize_support import Browser, without_request_id
from tests.functional.logout_support import ALICE, queued, signed_in, used_by, with_backchannel
from tests.functional.token_support import body_of
from tests.upstream_oidc import ScriptedProvider

SUBJECT = "carol-upstream-1"
RESOURCE = "/oauth/federation/{tenant}/{idp_id}/backchannel-logout"
REFUSED = {"error": "invalid_request", "error_description": "The logout_token could not be validated.",
           "error_uri": f"{ISSUER}/problems/invalid_request"}


def federated(browser: Browser, issuer: str, sid: str = "upstream-session-1", subject: str = SUBJECT) -> Any:
    from authgate.sessions.model import Upstream

    return signed_in(Browser(browser.invoke), Upstream(issuer, "democorp", "oidc", subject, sid=sid))


def live(session: Any) -> bool:
    from authgate.stores.sessions import SessionStore

    return any(s.sid == session.sid for s in SessionStore().of_user("demo", ALICE))


def post(invoke: Any, body: bytes | str, *, tenant: str = "demo", idp_id: str = "democorp",
         content_type: str = "application/x-www-form-urlencoded") -> dict[str, Any]:
    path = f"/oauth/federation/{tenant}/{idp_id}/backchannel-logout"
    data = body.encode() if isinstance(body, str) else body
    request = HttpRequest("POST", path, "", [("Host", "127.0.0.1:3000"), ("Content-Type", content_type)], data)
    result: dict[str, Any] = invoke("authorize", build_event(request, resource=RESOURCE,
                                                             path_params={"tenant": tenant, "idp_id": idp_id}))
    return result


def logged_out(invoke: Any, token: str, **where: str) -> dict[str, Any]:
    return post(invoke, urlencode({"logout_token": token}), **where)


def token(provider: ScriptedProvider, **claims: Any) -> str:
    """A logout token of `provider`, issued now by the stopped clock."""
    return provider.logout_token(**{"iat": START, "exp": START + 120, **claims})


def assert_ok(result: dict[str, Any]) -> None:
    assert (result["statusCode"], result["body"]) == (200, "")
    assert without_request_id(result) == {"Cache-Control": "no-store", "Pragma": "no-cache"}


def assert_refused(result: dict[str, Any], body: dict[str, str] = REFUSED) -> None:
    assert result["statusCode"] == 400
    assert without_request_id(result) == {"Content-Type": "application/json", "Cache-Control": "no-store",
                                          "Pragma": "no-cache"}
    assert body_of(result) == body


def test_a_logout_token_naming_the_upstream_session_ends_what_it_opened(clock: ManualClock, browser: Browser,
                                                                       op: ScriptedProvider, invoke: Any) -> None:
    with_backchannel("demo-web", "https://rp.example/backchannel")
    ended = used_by(federated(browser, op.issuer), "demo-web")
    other_upstream_session = federated(browser, op.issuer, sid="upstream-session-2")
    local = signed_in(Browser(invoke))
    assert_ok(logged_out(invoke, token(op)))
    assert (live(ended), live(other_upstream_session), live(local)) == (False, True, True)
    # authgate's own clients of the ended session hear of it as after a sign-out (Back-Channel Logout 1.0 2.5).
    (message,) = queued()
    assert {k: v for k, v in message.items() if k != "jti"} == {
        "kind": "backchannel_logout", "issuer": ISSUER, "client_id": "demo-web", "uri": "https://rp.example/backchannel",
        "sub": ALICE, "sid": ended.sid, "alg": "RS256"}


def test_a_sid_of_another_subject_ends_nothing(clock: ManualClock, browser: Browser, op: ScriptedProvider,
                                               invoke: Any) -> None:
    session = federated(browser, op.issuer)
    assert_ok(logged_out(invoke, token(op, sub="someone-else")))
    assert live(session)


def test_a_logout_token_with_sub_alone_ends_every_session_of_that_person_from_that_idp(
        clock: ManualClock, browser: Browser, op: ScriptedProvider, invoke: Any) -> None:
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.users.linked_identities import LinkedIdentity

    LinkedIdentityStore().link(LinkedIdentity("demo", op.issuer, SUBJECT, ALICE, "alice", 1, "proof"))
    first, second = federated(browser, op.issuer), federated(browser, op.issuer, sid="")
    local = signed_in(Browser(invoke))
    other_idp = federated(browser, "https://other.example", sid="")
    assert_ok(logged_out(invoke, token(op, sid=None)))
    assert (live(first), live(second), live(local), live(other_idp)) == (False, False, True, True)


def test_an_unknown_sid_or_an_unlinked_sub_is_a_success_that_ends_nothing(clock: ManualClock, browser: Browser,
                                                                         op: ScriptedProvider, invoke: Any) -> None:
    """Back-Channel Logout 1.0 2.8: the token was valid; there was nothing here to end."""
    session = federated(browser, op.issuer)
    assert_ok(logged_out(invoke, token(op, sid="never-seen")))
    assert_ok(logged_out(invoke, token(op, sid=None, sub="never-linked")))
    assert live(session) and queued() == []


def test_a_replayed_logout_token_is_refused(clock: ManualClock, browser: Browser, op: ScriptedProvider,
                                            invoke: Any) -> None:
    spent = token(op)
    assert_ok(logged_out(invoke, spent))
    session = federated(browser, op.issuer)
    assert_refused(logged_out(invoke, spent))
    assert live(session)


def test_each_refusal_has_one_answer_and_ends_nothing(clock: ManualClock, browser: Browser, op: ScriptedProvider,
                                                      invoke: Any, server: DocumentServer) -> None:
    from authgate.stores.identity_providers import IdentityProviderStore

    other = ScriptedProvider(server, "otheridp", kid="other-key")
    IdentityProviderStore().create(other.idp(idp_id="otheridp"))
    session = federated(browser, op.issuer)
    forged = token(other, iss=op.issuer)  # signed by another IdP's key, claiming to be this one
    for result in (
        logged_out(invoke, forged),
        logged_out(invoke, token(other)),  # the other IdP's own token, at this IdP's URL
        logged_out(invoke, token(op), idp_id="otheridp"),  # this IdP's token at the other's URL
        logged_out(invoke, token(op), tenant="acme"),  # another tenant
        logged_out(invoke, token(op), tenant="no-such-tenant"),
        logged_out(invoke, token(op, aud="another-client")),
        logged_out(invoke, token(op, exp=1)),
        logged_out(invoke, token(op, iat=START + 3600, exp=START + 3700)),  # issued in the future
        logged_out(invoke, token(op, iat=None)),
        logged_out(invoke, token(op, jti=None)),
        logged_out(invoke, token(op, nonce="n")),
        logged_out(invoke, token(op, events=None)),
        logged_out(invoke, token(op, sub=None, sid=None)),
        logged_out(invoke, token(op, header={"typ": "JWT"})),
        logged_out(invoke, op.id_token(iat=START, exp=START + 300)),  # an ID token is not a logout token
        logged_out(invoke, "not.a.jwt"),
        logged_out(invoke, "x" * 40_000),
    ):
        assert_refused(result)
    assert live(session)


def test_a_malformed_request_is_refused(clock: ManualClock, browser: Browser, op: ScriptedProvider,
                                        invoke: Any) -> None:
    missing = {**REFUSED, "error_description": "The logout_token parameter is missing (Back-Channel Logout 1.0 2.5)."}
    assert_refused(post(invoke, "logout_token="), missing)
    assert_refused(post(invoke, "state=x"), missing)
    assert_refused(post(invoke, "logout_token=a&logout_token=b"),
                   {**REFUSED, "error_description": "The parameter 'logout_token' is repeated (RFC 6749 3.2)."})
    assert_refused(post(invoke, '{"logout_token": "x"}', content_type="application/json"),
                   {**REFUSED, "error_description": "The request body must be application/x-www-form-urlencoded "
                                                    "(RFC 6749 3.2)."})
