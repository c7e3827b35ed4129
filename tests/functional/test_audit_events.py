"""The audit events of the token endpoint, revocation, client registration and the charges API (docs/audit.md):
each act records one event, whole, with where the request came from; nothing secret in any of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from authgate.single_use.authentication import Authentication
from tests.conftest import Invoke
from tests.demo import ISSUER, WEB_REDIRECT, WRITE, Demo, body
from tests.demo import post_charge as post
from tests.document_server import DocumentServer
from tests.functional.authorize_support import Browser, page_of
from tests.functional.person_events_support import TIME, UUID7
from tests.functional.self_registration_support import call, params, register
from tests.functional.token_support import TokenClient, basic, body_of, claims_of, new_code

Events = Callable[[], list[dict[str, Any]]]


def one(events: Events, action: str) -> dict[str, Any]:
    """The one event of `action`, with its id, time and request id checked and taken out."""
    found = [e for e in events() if e["action"] == action]
    assert len(found) == 1, [e["action"] for e in events()]
    event = dict(found[0])
    assert UUID7.fullmatch(event.pop("id")) and TIME.fullmatch(event.pop("time")), found[0]
    assert event.pop("request_id")
    return event


def alice_id() -> str:
    from authgate.stores.users import UserStore

    user = UserStore().get("demo", "alice")
    assert user is not None
    return user.user_id


def test_a_client_credentials_token_is_recorded_with_what_it_carries(tokens: TokenClient, audit_events: Events) -> None:
    result = tokens.post({"grant_type": "client_credentials", "scope": "charges:read"},
                         auth=basic("demo-service", "demo-service-secret"), headers=[("User-Agent", "billing/2.1")])
    jti = claims_of(body_of(result)["access_token"])["jti"]
    assert one(audit_events, "token.issued") == {
        "tenant": "demo", "actor": {"type": "client", "id": "demo-service"}, "action": "token.issued",
        "target": {"type": "client", "id": "demo-service"}, "outcome": "success",
        "source_ip": "127.0.0.1", "user_agent": "billing/2.1",
        "details": {"grant_type": "client_credentials", "client_id": "demo-service", "scopes": ["charges:read"],
                    "resource": f"{ISSUER}/charges", "token_type": "Bearer", "jti": jti, "refreshable": False,
                    "openid": False}}


def test_a_code_and_its_refresh_are_recorded_for_the_user_and_a_replay_revokes_the_grant(
        tokens: TokenClient, audit_events: Events) -> None:
    from authgate.stores.codes import CodeStore

    user_id = alice_id()
    code = CodeStore().create(client_id="demo-web", tenant_id="demo", redirect_uri=WEB_REDIRECT,
                              code_challenge="E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                              code_challenge_method="S256", scope=WRITE, subject="alice",
                              authentication=Authentication(user_id, 1))
    issued = body_of(tokens.exchange(code))
    assert one(audit_events, "token.issued")["target"] == {"type": "user", "id": user_id}
    assert one(audit_events, "token.issued")["details"]["username"] == "alice"
    assert one(audit_events, "token.issued")["details"]["refreshable"] is True

    refreshed = body_of(tokens.refresh(issued["refresh_token"]))
    event = one(audit_events, "token.refreshed")
    assert (event["actor"], event["target"], event["details"]["grant_type"]) == (
        {"type": "client", "id": "demo-web"}, {"type": "user", "id": user_id}, "refresh_token")
    assert refreshed["refresh_token"] != issued["refresh_token"]

    assert tokens.refresh(issued["refresh_token"])["statusCode"] == 400  # the rotated token again
    grant = claims_of(issued["access_token"])["grant_id"]
    assert one(audit_events, "token.revoked") == {
        "tenant": "demo", "actor": {"type": "client", "id": "demo-web"}, "action": "token.revoked",
        "target": {"type": "token", "id": grant}, "outcome": "success", "reason": "refresh_token_replayed",
        "source_ip": "127.0.0.1", "user_agent": "", "details": {"kind": "grant", "client_id": "demo-web"}}


def test_a_replayed_code_revokes_its_grant(tokens: TokenClient, audit_events: Events) -> None:
    code = new_code()
    assert tokens.exchange(code)["statusCode"] == 200
    assert tokens.exchange(code)["statusCode"] == 400
    event = one(audit_events, "token.revoked")
    assert (event["reason"], event["actor"], event["details"]["kind"]) == (
        "code_replayed", {"type": "client", "id": "demo-web"}, "grant")


def test_a_failed_client_authentication_says_why_never_the_secret(tokens: TokenClient, audit_events: Events) -> None:
    assert tokens.post({"grant_type": "client_credentials"}, auth=basic("demo-service", "wrong-secret-value"))[
        "statusCode"] == 401
    assert one(audit_events, "client.authentication_failed") == {
        "tenant": "demo", "actor": {"type": "client", "id": "demo-service"}, "action": "client.authentication_failed",
        "target": {"type": "client", "id": "demo-service"}, "outcome": "failure", "reason": "wrong_secret",
        "source_ip": "127.0.0.1", "user_agent": "", "details": {"method": "client_secret_basic"}}
    assert tokens.post({"grant_type": "client_credentials"}, auth=basic("nobody-here", "whatever-secret"))[
        "statusCode"] == 401
    unknown = [e for e in audit_events() if e["target"]["id"] == "nobody-here"]
    assert [(e["tenant"], e["reason"]) for e in unknown] == [("", "unknown_client")]
    assert "wrong-secret-value" not in str(audit_events()) and "whatever-secret" not in str(audit_events())


def test_revoking_an_access_token_is_recorded_with_its_id(tokens: TokenClient, audit_events: Events) -> None:
    access = body_of(tokens.client_credentials())["access_token"]
    assert tokens.revoke(access, client_id="demo-service")["statusCode"] == 200
    event = one(audit_events, "token.revoked")
    assert (event["target"], event["reason"], event["details"]) == (
        {"type": "token", "id": claims_of(access)["jti"]}, "revoked_by_client",
        {"kind": "access_token", "client_id": "demo-service", "subject": "demo-service"})


def test_a_registration_its_change_and_its_deletion_are_recorded(dcr: None, invoke: Invoke,
                                                                 audit_events: Events) -> None:
    registered = body_of(register(invoke))
    client_id, token = registered["client_id"], registered["registration_access_token"]
    facts = {"source": "registration", "client_name": "CLI Agent", "client_type": "public",
             "redirect_uris": ["http://127.0.0.1:9/callback"], "grant_types": ["authorization_code", "refresh_token"],
             "scopes": [], "token_endpoint_auth_method": "none"}
    event = one(audit_events, "client.registered")
    assert (event["tenant"], event["actor"], event["target"], event["details"]) == (
        "", {"type": "client", "id": client_id}, {"type": "client", "id": client_id}, facts)
    path, resource = f"/oauth/register/{client_id}", "/oauth/register/{client_id}"
    updated = call(invoke, "PUT", path, {"client_id": client_id, "client_name": "Renamed",
                                         "redirect_uris": ["https://agent.example/cb"]}, token=token, resource=resource)
    assert one(audit_events, "client.changed")["details"]["client_name"] == "Renamed"
    assert call(invoke, "DELETE", path, token=body_of(updated)["registration_access_token"],
                resource=resource)["statusCode"] == 204
    assert one(audit_events, "client.deleted")["target"] == {"type": "client", "id": client_id}
    assert token not in str(audit_events())


def test_a_metadata_documents_first_fetch_registers_its_client(cimd: DocumentServer, browser: Browser,
                                                               audit_events: Events) -> None:
    client_id = cimd.document("/agent.json", scope="charges:read")
    assert page_of(browser.get(params(client_id))).status == 200
    assert page_of(browser.get(params(client_id))).status == 200  # the cached record: no second event
    event = one(audit_events, "client.registered")
    assert (event["actor"], event["details"]["source"], event["details"]["client_name"]) == (
        {"type": "client", "id": client_id}, "metadata_document", "Test Agent")


ORDER = {"type": "charge", "actions": ["create"], "amount": 1250, "currency": "usd", "max_charges": 1}


def token_for(grant_id: str) -> str:
    from authgate import clock
    from authgate.tokens.access_token import issue_access_token

    return issue_access_token(issuer=ISSUER, subject="alice", client_id="demo-web", tenant="demo", scope=WRITE,
                              grant_id=grant_id, acr="password", auth_time=clock.seconds(),
                              authorization_details=[ORDER]).token


def test_a_charge_is_recorded_once_and_one_beyond_its_approval_as_refused(demo: Demo, invoke: Invoke,
                                                                         audit_events: Events) -> None:
    created = post(demo, invoke, token_for("g-audit"), {"amount": 1250, "currency": "usd"}, key="k-audit")
    assert created["statusCode"] == 201
    assert post(demo, invoke, token_for("g-audit"), {"amount": 1250, "currency": "usd"}, key="k-audit")[
        "statusCode"] == 201  # a replay: nothing new
    assert one(audit_events, "charge.created") == {
        "tenant": "demo", "actor": {"type": "client", "id": "demo-web"}, "action": "charge.created",
        "target": {"type": "charge", "id": body(created)["id"]}, "outcome": "success", "source_ip": "127.0.0.1",
        "user_agent": "", "details": {"amount": 1250, "currency": "usd", "client_id": "demo-web", "subject": "alice",
                                      "act": None, "grant_id": "g-audit", "invoice_id": None, "idempotent": True}}
    assert post(demo, invoke, token_for("g-audit"), {"amount": 1250, "currency": "usd"})["statusCode"] == 403
    refused = one(audit_events, "charge.refused")
    assert (refused["outcome"], refused["reason"], refused["target"], refused["details"]["why"]) == (
        "failure", "exceeds_approval", {"type": "charge", "id": ""},
        ("This grant has already made the 1 charge its approved payment allows (max_charges); ask the user to "
         "approve a new payment."))
