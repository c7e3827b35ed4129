"""Every table's items, attribute by attribute, as the stores write them: deployed data stays readable.

Each test writes through a store and reads the raw item back with a plain boto3 client, so a
change of marshalling (a renamed attribute, a number written as a string, an optional attribute
now written empty) fails here before it reaches a deployment's existing items. Random values
(hashes of fresh secrets, uuids) are compared by what they are derived from.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import boto3
import pytest

from authgate.clock import ManualClock
from authgate.settings import Settings
from tests.conftest import START

pytestmark = pytest.mark.usefixtures("aws", "clock")


def raw(table: str, **key: str) -> dict[str, Any]:
    item = boto3.client("dynamodb").get_item(TableName=table, Key={k: {"S": v} for k, v in key.items()},
                                             ConsistentRead=True).get("Item")
    assert item is not None, f"no item {key} in {table}"
    return item


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_a_client_and_its_origin_record() -> None:
    from authgate.stores.clients import ClientStore

    client, secret = ClientStore().create(
        client_id="c1", tenant_id="t1", name="One", client_type="confidential", secret="s" * 43,
        redirect_uris=["https://app.example/cb"], grant_types=["authorization_code", "client_credentials"],
        scopes=["charges:read"], resource_scopes=[("https://api.example", ("read",))])
    assert secret == "s" * 43
    assert raw("ClientsTable", client_id="c1") == {
        "client_id": {"S": "c1"}, "tenant_id": {"S": "t1"}, "environment": {"S": "local"},
        "client_type": {"S": "confidential"}, "secret_hash": {"S": sha256("s" * 43)},
        "redirect_uris": {"L": [{"S": "https://app.example/cb"}]},
        "grant_types": {"L": [{"S": "authorization_code"}, {"S": "client_credentials"}]},
        "scopes": {"L": [{"S": "charges:read"}]}, "error_format": {"S": "problem"},
        "requires_admin_approval": {"BOOL": False}, "name": {"S": "One"}, "created_at": {"N": str(START)},
        "resource_scopes": {"M": {"https://api.example": {"L": [{"S": "read"}]}}},
    }
    ClientStore().create(client_id="spa", tenant_id="t1", client_type="public",
                         redirect_uris=["https://spa.example/cb"], grant_types=["authorization_code"],
                         jwks=[{"kty": "EC"}], token_endpoint_auth_method="none",
                         require_pushed_authorization_requests=True, profile="", dpop_bound_access_tokens=True)
    spa = raw("ClientsTable", client_id="spa")
    assert "secret_hash" not in spa and "profile" not in spa
    assert {k: spa[k] for k in ("jwks", "token_endpoint_auth_method", "require_pushed_authorization_requests",
                                "dpop_bound_access_tokens")} == {
        "jwks": {"S": '{"keys":[{"kty":"EC"}]}'}, "token_endpoint_auth_method": {"S": "none"},
        "require_pushed_authorization_requests": {"BOOL": True}, "dpop_bound_access_tokens": {"BOOL": True}}
    assert raw("ClientsTable", client_id="origin local https://spa.example") == {
        "client_id": {"S": "origin local https://spa.example"}, "clients": {"SS": ["spa"]}}
    assert client.client_id == "c1"


def test_a_user() -> None:
    from authgate.stores.users import UserStore

    UserStore().put_hash("t1", "alice", "scrypt$hash", user_id="usr_a", name="Alice", email="Alice@Example.com",
                         email_verified=True)
    assert raw("UsersTable", tenant_id="t1", username="alice") == {
        "tenant_id": {"S": "t1"}, "username": {"S": "alice"}, "failed_logins": {"N": "0"}, "user_id": {"S": "usr_a"},
        "name": {"S": "Alice"}, "email": {"S": "Alice@Example.com"}, "email_verified": {"BOOL": True},
        "password_hash": {"S": "scrypt$hash"}, "created_at": {"N": str(START)}, "updated_at": {"N": str(START)},
        "email_lower": {"S": "alice@example.com"}}


def test_a_resource_and_its_introspector_record() -> None:
    from authgate.resources.model import Resource
    from authgate.stores.resources import ResourceStore

    ResourceStore().create(Resource("https://api.example", ("read", "write"), ("t1",), "intro", START,
                                    "API", "", (("read", "Read it"),)))
    assert raw("ResourcesTable", resource="https://api.example") == {
        "resource": {"S": "https://api.example"}, "scopes": {"L": [{"S": "read"}, {"S": "write"}]},
        "tenants": {"L": [{"S": "t1"}]}, "introspection_client_id": {"S": "intro"}, "created_at": {"N": str(START)},
        "name": {"S": "API"}, "scope_descriptions": {"M": {"read": {"S": "Read it"}}}}
    assert raw("ResourcesTable", resource="introspector intro") == {
        "resource": {"S": "introspector intro"}, "kind": {"S": "introspector"}, "target": {"S": "https://api.example"}}


def test_a_tenant() -> None:
    from authgate.stores.tenants import TenantStore
    from authgate.tenants.model import tenant_of

    TenantStore().put(tenant_of({"tenant_id": "t1", "name": "T", "currencies": ["usd"],
                                 "forbidden_scopes": ["b", "a"], "approved_clients": []}))
    assert raw("TenantsTable", tenant_id="t1") == {
        "tenant_id": {"S": "t1"}, "name": {"S": "T"}, "currencies": {"L": [{"S": "usd"}]},
        "forbidden_scopes": {"L": [{"S": "a"}, {"S": "b"}]}, "approved_clients": {"L": []},
        "registered_clients_cap": {"N": "100"}, "sca_max_age": {"N": "300"}}
    TenantStore().put(tenant_of({"tenant_id": "t2", "currencies": ["usd"], "sca_threshold": 10000, "sca_max_age": 60}))
    assert raw("TenantsTable", tenant_id="t2") == {
        "tenant_id": {"S": "t2"}, "name": {"S": ""}, "currencies": {"L": [{"S": "usd"}]},
        "forbidden_scopes": {"L": []}, "approved_clients": {"L": []}, "registered_clients_cap": {"N": "100"},
        "sca_threshold": {"N": "10000"}, "sca_max_age": {"N": "60"}}


def test_a_sign_in_session_local_and_federated() -> None:
    from authgate.sessions.model import Upstream
    from authgate.stores.sessions import SessionStore

    store = SessionStore()
    secret, _local = store.create(tenant_id="t1", user_id="usr_a", username="alice", acr="password", amr=("pwd",),
                                 generation=0, sid="sid-local")
    session = {"session_hash": {"S": sha256(secret)}, "sid": {"S": "sid-local"}, "tenant_id": {"S": "t1"},
               "user_id": {"S": "usr_a"}, "username": {"S": "alice"}, "auth_time": {"N": str(START)},
               "acr": {"S": "password"}, "amr": {"L": [{"S": "pwd"}]}, "created_at": {"N": str(START)},
               "last_active": {"N": str(START)}, "expires_at": {"N": str(START + Settings().session_lifetime)},
               "user_key": {"S": "t1#usr_a"}}
    assert raw("SessionsTable", session_hash=sha256(secret)) == session
    secret, federated = store.create(
        tenant_id="t1", user_id="usr_a", username="alice", acr="password", amr=("fed",), generation=0,
        sid="sid-fed", upstream=Upstream("https://op.example", "acme", "oidc", "00u1", sid="op-sid",
                                         id_token="v1.sealed"))
    assert raw("SessionsTable", session_hash=sha256(secret)) == {
        **session, "session_hash": {"S": sha256(secret)}, "sid": {"S": "sid-fed"}, "amr": {"L": [{"S": "fed"}]},
        "upstream": {"M": {"issuer": {"S": "https://op.example"}, "idp_id": {"S": "acme"}, "protocol": {"S": "oidc"},
                           "subject": {"S": "00u1"}, "sid": {"S": "op-sid"}, "id_token": {"S": "v1.sealed"}}},
        # The UpstreamSessions index key: SHA-256 of tenant NUL issuer NUL the upstream's sid.
        "upstream_key": {"S": sha256("t1\0https://op.example\0op-sid")}}
    assert store.live(secret) == federated
    assert store.of_upstream("t1", "https://op.example", "op-sid") == [federated]
    assert store.of_upstream("t2", "https://op.example", "op-sid") == []
    # An upstream that sent no session id puts no key: the index is sparse.
    secret, _ = store.create(tenant_id="t1", user_id="usr_a", username="alice", acr="password", amr=("fed",),
                             generation=0, upstream=Upstream("https://op.example", "acme", "oidc", "00u1"))
    assert "upstream_key" not in raw("SessionsTable", session_hash=sha256(secret))


def test_a_charge_its_idempotency_record_and_the_invoice_it_paid() -> None:
    from authgate.billing.charge import Charge
    from authgate.billing.idempotency import IdempotencyRecord
    from authgate.billing.invoice import Invoice
    from authgate.stores.charges import ChargeStore
    from authgate.stores.invoices import InvoiceStore

    InvoiceStore().put(Invoice("t1", "inv_1", "open", amount_due=500, currency="usd"))
    assert raw("InvoicesTable", tenant_id="t1", invoice_id="inv_1") == {
        "tenant_id": {"S": "t1"}, "invoice_id": {"S": "inv_1"}, "status": {"S": "open"},
        "amount_due": {"N": "500"}, "currency": {"S": "usd"}}
    charge = Charge("t1", "ch_1", 500, "usd", START, "c1", description="", invoice_id="inv_1", request_hash="h")
    record = IdempotencyRecord("d" * 64, "h", "t1", "ch_1", 201, '{"id":"ch_1"}', START + 86400)
    ChargeStore().create(charge, record)
    assert raw("ChargesTable", tenant_id="t1", charge_id="ch_1") == {
        "tenant_id": {"S": "t1"}, "charge_id": {"S": "ch_1"}, "amount": {"N": "500"}, "currency": {"S": "usd"},
        "status": {"S": "succeeded"}, "created": {"N": str(START)}, "client_id": {"S": "c1"},
        "description": {"S": ""}, "invoice_id": {"S": "inv_1"}, "request_hash": {"S": "h"}}
    assert raw("IdempotencyTable", id="charge-for#" + "d" * 64) == {
        "id": {"S": "charge-for#" + "d" * 64}, "request_hash": {"S": "h"}, "tenant_id": {"S": "t1"},
        "charge_id": {"S": "ch_1"}, "status": {"N": "201"}, "expiration": {"N": str(START + 86400)},
        "body": {"S": '{"id":"ch_1"}'}}
    assert raw("InvoicesTable", tenant_id="t1", invoice_id="inv_1") == {
        "tenant_id": {"S": "t1"}, "invoice_id": {"S": "inv_1"}, "status": {"S": "paid"},
        "amount_due": {"N": "500"}, "currency": {"S": "usd"}, "charge_id": {"S": "ch_1"}, "paid_at": {"N": str(START)}}
    ChargeStore().create(Charge("t1", "ch_2", 100, "eur", START, "c1"))
    assert raw("ChargesTable", tenant_id="t1", charge_id="ch_2") == {
        "tenant_id": {"S": "t1"}, "charge_id": {"S": "ch_2"}, "amount": {"N": "100"}, "currency": {"S": "eur"},
        "status": {"S": "succeeded"}, "created": {"N": str(START)}, "client_id": {"S": "c1"}}


def test_a_code_before_and_after_its_use(clock: ManualClock) -> None:
    from authgate.stores.codes import CodeStore

    store = CodeStore()
    code = store.create(client_id="c1", tenant_id="t1", redirect_uri="https://app.example/cb", code_challenge="cc",
                        code_challenge_method="S256", scope="read", subject="alice", dpop_jkt="jkt",
                        resource="https://api.example")
    item = raw("CodesTable", code_hash=sha256(code))
    assert item.pop("grant_id")["S"]
    assert item == {
        "code_hash": {"S": sha256(code)}, "client_id": {"S": "c1"}, "tenant_id": {"S": "t1"},
        "code_challenge": {"S": "cc"}, "code_challenge_method": {"S": "S256"}, "scope": {"S": "read"},
        "subject": {"S": "alice"}, "state": {"S": "issued"}, "issued_at": {"N": str(START)},
        "expires_at": {"N": str(START + 60)}, "redirect_uri": {"S": "https://app.example/cb"},
        "dpop_jkt": {"S": "jkt"}, "resource": {"S": "https://api.example"}, "redirect_uri_sent": {"BOOL": True}}
    clock.advance(5)
    store.consume(code)
    used = raw("CodesTable", code_hash=sha256(code))
    assert (used["state"], used["consumed_at"]) == ({"S": "consumed"}, {"N": str(START + 5)})
    bare = store.create(client_id="c1", tenant_id="t1", redirect_uri=None, code_challenge="cc",
                        code_challenge_method="S256", scope="", subject="alice")
    assert {k for k in raw("CodesTable", code_hash=sha256(bare))} == {
        "code_hash", "client_id", "tenant_id", "code_challenge", "code_challenge_method", "scope", "subject",
        "grant_id", "state", "issued_at", "expires_at", "redirect_uri_sent"}


def test_a_charge_under_authorization_details_and_its_grant_budget() -> None:
    """RFC 9396: the charge names its grant; the grant's budget is one item under its own partition key."""
    from authgate.billing.charge import Charge
    from authgate.billing.grant_budget import Budget
    from authgate.stores.charges import ChargeStore

    ChargeStore().create(Charge("t1", "ch_3", 100, "usd", START, "c1", grant_id="g-9"), budget=Budget("g-9", 2))
    assert raw("ChargesTable", tenant_id="t1", charge_id="ch_3")["grant_id"] == {"S": "g-9"}
    assert raw("ChargesTable", tenant_id="grant#g-9", charge_id="budget") == {
        "tenant_id": {"S": "grant#g-9"}, "charge_id": {"S": "budget"}, "used": {"N": "1"}, "tenant": {"S": "t1"},
        "updated_at": {"N": str(START)}}


def test_a_code_and_a_refresh_family_keep_the_authorization_details() -> None:
    """RFC 9396: the approved details as canonical JSON, copied from the code to the family and through rotation."""
    from authgate.single_use.refresh_tokens import hash_token
    from authgate.stores.codes import CodeStore
    from authgate.stores.refresh_tokens import RefreshTokenStore

    details = '[{"amount":1,"currency":"usd","type":"charge"}]'
    code = CodeStore().create(client_id="c1", tenant_id="t1", redirect_uri=None, code_challenge="cc",
                              code_challenge_method="S256", scope="read", subject="alice",
                              authorization_details=details)
    assert raw("CodesTable", code_hash=sha256(code))["authorization_details"] == {"S": details}
    store = RefreshTokenStore()
    token = store.start_family(family_id="g3", client_id="c1", tenant_id="t1", subject="alice", scope="read",
                               now=START, ttl=3600, authorization_details=details)
    first = store.get(token)
    assert first is not None and first.authorization_details == details
    rotated = raw("RefreshTokensTable", token_hash=hash_token(store.rotate(first, START + 1)))
    assert rotated["authorization_details"] == {"S": details}


def test_a_code_and_a_refresh_family_keep_the_sign_in_behind_the_grant() -> None:
    """auth_time, acr and amr of the sign-in (RFC 9068 2.2.1, RFC 8176): written by the code, copied to the
    family, kept through rotation (a refresh never raises them)."""
    from authgate.single_use.authentication import Authentication
    from authgate.single_use.refresh_tokens import hash_token
    from authgate.stores.codes import CodeStore
    from authgate.stores.refresh_tokens import RefreshTokenStore

    signed_in = Authentication("usr_a", START - 30, "mfa", ("pwd", "otp", "mfa"))
    code = CodeStore().create(client_id="c1", tenant_id="t1", redirect_uri=None, code_challenge="cc",
                              code_challenge_method="S256", scope="read", subject="alice", authentication=signed_in)
    item = raw("CodesTable", code_hash=sha256(code))
    assert {k: item[k] for k in ("auth_time", "acr", "amr")} == {
        "auth_time": {"N": str(START - 30)}, "acr": {"S": "mfa"}, "amr": {"L": [{"S": "pwd"}, {"S": "otp"}, {"S": "mfa"}]}}
    record = CodeStore().consume(code)
    assert record.authentication == signed_in
    store = RefreshTokenStore()
    token = store.start_family(family_id="g2", client_id="c1", tenant_id="t1", subject="alice", scope="read",
                               now=START, ttl=3600, authentication=signed_in)
    first = store.get(token)
    assert first is not None and first.authentication == signed_in
    successor = store.rotate(first, START + 10)
    rotated = raw("RefreshTokensTable", token_hash=hash_token(successor))
    assert {k: rotated[k] for k in ("auth_time", "acr", "amr", "issued_at", "state")} == {
        "auth_time": {"N": str(START - 30)}, "acr": {"S": "mfa"}, "amr": {"L": [{"S": "pwd"}, {"S": "otp"}, {"S": "mfa"}]},
        "issued_at": {"N": str(START + 10)}, "state": {"S": "active"}}


def test_a_pushed_request_before_and_after_its_use(clock: ManualClock) -> None:
    from authgate.stores.pushed_requests import PushedRequestStore

    store = PushedRequestStore()
    request_uri, _ = store.create("c1", {"scope": ["read"]})
    key = "par#" + sha256(request_uri)
    assert raw("CodesTable", code_hash=key) == {
        "code_hash": {"S": key}, "client_id": {"S": "c1"}, "state": {"S": "pushed"},
        "params": {"S": '{"scope":["read"]}'}, "issued_at": {"N": str(START)}, "expires_at": {"N": str(START + 60)}}
    clock.advance(2)
    store.consume(request_uri, "c1")
    used = raw("CodesTable", code_hash=key)
    assert (used["state"], used["used_at"]) == ({"S": "used"}, {"N": str(START + 2)})


def test_a_refresh_token_family_through_rotation_and_revocation() -> None:
    from authgate.single_use.refresh_tokens import hash_token
    from authgate.stores.refresh_tokens import RefreshTokenStore, family_key

    store = RefreshTokenStore()
    token = store.start_family(family_id="g1", client_id="c1", tenant_id="t1", subject="alice", scope="read",
                               now=START, ttl=3600, dpop_jkt="jkt", resource="https://api.example")
    assert raw("RefreshTokensTable", token_hash=hash_token(token)) == {
        "token_hash": {"S": hash_token(token)}, "kind": {"S": "token"}, "family_id": {"S": "g1"},
        "client_id": {"S": "c1"}, "tenant_id": {"S": "t1"}, "subject": {"S": "alice"}, "scope": {"S": "read"},
        "state": {"S": "active"}, "expires_at": {"N": str(START + 3600)}, "issued_at": {"N": str(START)},
        "dpop_jkt": {"S": "jkt"}, "resource": {"S": "https://api.example"}}
    assert raw("RefreshTokensTable", token_hash=family_key("g1")) == {
        "token_hash": {"S": "family#g1"}, "state": {"S": "active"}, "kind": {"S": "family"},
        "expires_at": {"N": str(START + 3600)}}
    old = store.get(token)
    assert old is not None
    successor = store.rotate(old, START + 10)
    rotated = raw("RefreshTokensTable", token_hash=hash_token(token))
    assert {k: rotated[k] for k in ("state", "rotated_to", "rotated_at")} == {
        "state": {"S": "rotated"}, "rotated_to": {"S": hash_token(successor)}, "rotated_at": {"N": str(START + 10)}}
    store.revoke_family("g1", START + 3600)
    assert raw("RefreshTokensTable", token_hash=family_key("g1"))["state"] == {"S": "revoked"}


def test_a_revocation_and_a_spent_jwt_id() -> None:
    from authgate.stores.replay import ReplayGuard
    from authgate.stores.revocations import RevocationStore

    RevocationStore().revoke_jti("j1", START + 900)
    assert raw("RevocationsTable", revocation_id="jti#j1") == {
        "revocation_id": {"S": "jti#j1"}, "expires_at": {"N": str(START + 900)}, "revoked_at": {"N": str(START)}}
    ReplayGuard().use("dpop#k#j", START + 60)
    assert raw("ReplayTable", id=sha256("dpop#k#j")) == {
        "id": {"S": sha256("dpop#k#j")}, "expires_at": {"N": str(START + 60)}}


def test_a_signing_key_record() -> None:
    from authgate.stores.signing_keys import KeyRecord, KeyStore

    KeyStore().create(KeyRecord("k1", "next", "ES256", "local", '{"kty":"EC"}', START, START + 420,
                                secret_id="authgate/x/signing/k1"))
    assert raw("KeysTable", kid="k1") == {
        "kid": {"S": "k1"}, "state": {"S": "next"}, "alg": {"S": "ES256"}, "backend": {"S": "local"},
        "public_jwk": {"S": '{"kty":"EC"}'}, "secret_id": {"S": "authgate/x/signing/k1"},
        "created_at": {"N": str(START)}, "activates_at": {"N": str(START + 420)}}


def test_limit_counters() -> None:
    from authgate.stores.limits import LimitsStore

    LimitsStore().count("api#t1#60", {"total": 3}, START + 60)
    LimitsStore().add("authfail#client#c1#0", "failures", START + 300)
    assert raw("LimitsTable", limit_key="api#t1#60") == {
        "limit_key": {"S": "api#t1#60"}, "total": {"N": "1"}, "expires_at": {"N": str(START + 60)}}
    assert raw("LimitsTable", limit_key="authfail#client#c1#0") == {
        "limit_key": {"S": "authfail#client#c1#0"}, "failures": {"N": "1"}, "expires_at": {"N": str(START + 300)}}


def test_items_written_before_optional_attributes_existed_still_read() -> None:
    """Old items: each optional attribute absent, read as its default (no KeyError, no None where a str is due)."""
    from authgate.stores.charges import ChargeStore
    from authgate.stores.clients import ClientStore
    from authgate.stores.codes import CodeStore
    from authgate.stores.invoices import InvoiceStore
    from authgate.stores.refresh_tokens import RefreshTokenStore
    from authgate.stores.signing_keys import KeyStore

    ddb = boto3.client("dynamodb")
    ddb.put_item(TableName="ClientsTable", Item={"client_id": {"S": "old"}, "client_type": {"S": "public"},
                                                 "environment": {"S": "local"}})
    client = ClientStore().get("old")
    assert client is not None
    assert (client.tenant_id, client.secret_hash, client.redirect_uris, client.error_format, client.jwks,
            client.source, client.expires_at, client.resource_scopes) == ("", None, (), "problem", (), "", 0, ())
    ddb.put_item(TableName="ChargesTable", Item={
        "tenant_id": {"S": "t1"}, "charge_id": {"S": "ch_old"}, "amount": {"N": "1"}, "currency": {"S": "usd"},
        "status": {"S": "succeeded"}, "created": {"N": "5"}, "client_id": {"S": "c1"}})
    charge = ChargeStore().get("t1", "ch_old")
    assert charge is not None and (charge.description, charge.invoice_id, charge.request_hash) == (None, None, None)
    ddb.put_item(TableName="InvoicesTable", Item={"tenant_id": {"S": "t1"}, "invoice_id": {"S": "inv_old"},
                                                  "status": {"S": "open"}})
    invoice = InvoiceStore().get("t1", "inv_old")
    assert invoice is not None and (invoice.amount_due, invoice.currency, invoice.paid_at) == (None, None, None)
    ddb.put_item(TableName="CodesTable", Item={
        "code_hash": {"S": sha256("old-code")}, "client_id": {"S": "c1"}, "state": {"S": "issued"},
        "redirect_uri": {"S": "https://app.example/cb"}, "expires_at": {"N": str(START + 60)}})
    code = CodeStore().consume("old-code")
    # Before redirect_uri_sent was recorded, a stored redirect_uri meant the request sent one.
    assert (code.redirect_uri_sent, code.dpop_jkt, code.resource, code.scope, code.issued_at) == (
        True, None, None, "", 0)
    ddb.put_item(TableName="RefreshTokensTable", Item={
        "token_hash": {"S": sha256("old-token")}, "kind": {"S": "token"}, "family_id": {"S": "g0"},
        "client_id": {"S": "c1"}, "state": {"S": "active"}, "expires_at": {"N": str(START + 60)}})
    refresh = RefreshTokenStore().get("old-token")
    assert refresh is not None
    assert (refresh.tenant_id, refresh.subject, refresh.scope, refresh.issued_at, refresh.rotated_to,
            refresh.dpop_jkt, refresh.resource) == ("", "", "", 0, None, None, None)
    ddb.put_item(TableName="KeysTable", Item={
        "kid": {"S": "k0"}, "state": {"S": "previous"}, "alg": {"S": "RS256"}, "backend": {"S": "local"},
        "public_jwk": {"S": "{}"}, "created_at": {"N": "1"}, "activates_at": {"N": "2"}})
    key = KeyStore().get("k0")
    assert key is not None and (key.retires_at, key.expires_at, key.secret_id, key.kms_key_id) == (0, 0, "", "")
    assert json.loads(key.public_jwk) == {}


def test_a_passkey_and_a_webauthn_challenge(clock: ManualClock) -> None:
    from authgate.stores.passkeys import PasskeyStore
    from authgate.stores.webauthn_challenges import WebAuthnChallengeStore
    from authgate.users.passkeys import Passkey

    PasskeyStore().add(Passkey("cred-1", "t1", "alice", "cose-key", 3, "Phone", START, backup_eligible=True,
                               transports=("internal",), aaguid="aa"))
    assert raw("PasskeysTable", credential_id="cred-1") == {
        "credential_id": {"S": "cred-1"}, "tenant_id": {"S": "t1"}, "username": {"S": "alice"},
        "public_key": {"S": "cose-key"}, "sign_count": {"N": "3"}, "name": {"S": "Phone"},
        "created_at": {"N": str(START)}, "backup_eligible": {"BOOL": True}, "backed_up": {"BOOL": False},
        "transports": {"L": [{"S": "internal"}]}, "aaguid": {"S": "aa"}, "user_key": {"S": "t1#alice"}}
    challenge = WebAuthnChallengeStore().issue("register", "sid", "t1", "alice")
    key = "webauthn#" + hashlib.sha256(challenge).hexdigest()
    assert raw("CodesTable", code_hash=key) == {
        "code_hash": {"S": key}, "state": {"S": "issued"}, "purpose": {"S": "register"},
        "binding_hash": {"S": sha256("sid")}, "tenant_id": {"S": "t1"}, "username": {"S": "alice"},
        "issued_at": {"N": str(START)}, "expires_at": {"N": str(START + 300)}}


def test_an_identity_provider_for_id_jags_and_one_for_sign_in() -> None:
    from authgate.identity_providers.model import IdentityProvider
    from authgate.stores.identity_providers import IdentityProviderStore

    store = IdentityProviderStore()
    store.create(IdentityProvider("t1", "https://idp.example", jwks_uri="https://idp.example/keys", created_at=START))
    assert raw("IdentityProvidersTable", tenant_id="t1", issuer="https://idp.example") == {
        "tenant_id": {"S": "t1"}, "issuer": {"S": "https://idp.example"}, "jwks_uri": {"S": "https://idp.example/keys"},
        "user_match": {"S": "sub"}, "create_users": {"BOOL": False}, "created_at": {"N": str(START)},
        "step_up": {"S": "local"}}
    store.create(IdentityProvider(
        "t1", "https://sso.acme.example", created_at=START, idp_id="acme", protocol="oidc", label="Acme SSO",
        domains=("acme.example",), sign_in=True, client_id="authgate", client_secret="v1.sealed", scopes="openid email",
        trust_email=True, trust_mfa=True, mfa_values=("mfa",), step_up="upstream", claims=(("groups", "roles"),)))
    assert raw("IdentityProvidersTable", tenant_id="t1", issuer="https://sso.acme.example") == {
        "tenant_id": {"S": "t1"}, "issuer": {"S": "https://sso.acme.example"}, "user_match": {"S": "sub"},
        "create_users": {"BOOL": False}, "created_at": {"N": str(START)}, "idp_id": {"S": "acme"},
        "protocol": {"S": "oidc"}, "label": {"S": "Acme SSO"}, "domains": {"L": [{"S": "acme.example"}]},
        "sign_in": {"BOOL": True}, "client_id": {"S": "authgate"}, "client_secret": {"S": "v1.sealed"},
        "scopes": {"S": "openid email"}, "trust_email": {"BOOL": True}, "trust_mfa": {"BOOL": True},
        "mfa_values": {"L": [{"S": "mfa"}]}, "step_up": {"S": "upstream"}, "claims": {"M": {"groups": {"S": "roles"}}}}
    store.create(IdentityProvider("t1", "https://appleid.apple.com", preset="apple", apple_team_id="TEAM123456",
                                  apple_key_id="KEY1234567", apple_private_key="v1.sealed-key",
                                  saml=None, created_at=START))
    apple = raw("IdentityProvidersTable", tenant_id="t1", issuer="https://appleid.apple.com")
    assert {k: apple[k] for k in ("preset", "apple_team_id", "apple_key_id", "apple_private_key")} == {
        "preset": {"S": "apple"}, "apple_team_id": {"S": "TEAM123456"}, "apple_key_id": {"S": "KEY1234567"},
        "apple_private_key": {"S": "v1.sealed-key"}}
    store.create(IdentityProvider("t1", "https://saml.example", protocol="saml", created_at=START,
                                  saml={"entity_id": "https://saml.example", "certificates": ["PEM"]}))
    assert raw("IdentityProvidersTable", tenant_id="t1", issuer="https://saml.example")["saml"] == {
        "S": '{"entity_id":"https://saml.example","certificates":["PEM"]}'}
    assert [i.issuer for i in store.of_tenant("t1")] == [
        "https://appleid.apple.com", "https://idp.example", "https://saml.example", "https://sso.acme.example"]


def test_an_identity_provider_written_before_sign_in_reads_as_trusted_for_id_jags_only() -> None:
    from authgate.identity_providers.model import IdentityProvider
    from authgate.stores.identity_providers import IdentityProviderStore

    boto3.client("dynamodb").put_item(TableName="IdentityProvidersTable", Item={
        "tenant_id": {"S": "t1"}, "issuer": {"S": "https://old.example"}, "jwks_uri": {"S": "https://old.example/k"},
        "user_match": {"S": "email"}, "create_users": {"BOOL": True}, "created_at": {"N": "5"}})
    assert IdentityProviderStore().get("t1", "https://old.example") == IdentityProvider(
        "t1", "https://old.example", jwks_uri="https://old.example/k", user_match="email", create_users=True,
        created_at=5)


def test_a_federated_only_user_and_its_linked_identity() -> None:
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.users.linked_identities import LinkedIdentity, identity_key
    from authgate.users.model import User

    dana = User("t1", "dana", 0, 0, user_id="usr_d", email="Dana@Example.com", created_at=START, updated_at=START,
                sessions_valid_after=START - 1, federated_only=True)
    LinkedIdentityStore().provision(dana, LinkedIdentity("t1", "https://idp.example", "00u1", "usr_d", "dana", START,
                                                         "provisioned"))
    assert raw("UsersTable", tenant_id="t1", username="dana") == {
        "tenant_id": {"S": "t1"}, "username": {"S": "dana"}, "failed_logins": {"N": "0"}, "user_id": {"S": "usr_d"},
        "email": {"S": "Dana@Example.com"}, "sessions_valid_after": {"N": str(START - 1)},
        "created_at": {"N": str(START)}, "updated_at": {"N": str(START)}, "federated_only": {"BOOL": True},
        "email_lower": {"S": "dana@example.com"}, "passkeys": {"N": "0"}}
    # base64url(SHA-256("https://idp.example" NUL "00u1")): the key deployed items are found by.
    key = identity_key("https://idp.example", "00u1")
    assert key == "dPwiA7qRZBlwbsx1QNylOoDgstFR6cyMw3Mz_URg01M"
    assert raw("LinkedIdentitiesTable", tenant_id="t1", identity=key) == {
        "tenant_id": {"S": "t1"}, "identity": {"S": key}, "issuer": {"S": "https://idp.example"},
        "subject": {"S": "00u1"}, "user_id": {"S": "usr_d"}, "username": {"S": "dana"}, "linked_at": {"N": str(START)},
        "via": {"S": "provisioned"}}
