"""The ID-JAG grant at the token endpoint (draft-ietf-oauth-identity-assertion-authz-grant; RFC 7523 2.1, 3; MCP
Enterprise-Managed Authorization): a confidential client presents its user's Identity Assertion JWT
Authorization Grant and gets a token for the resource it names. Whole responses: status, headers, body."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import pytest

from tests.demo import ALICE_ID, ISSUER, SECRETS
from tests.document_server import DocumentServer, Route, trust_documents
from tests.functional.resource_support import MCP, register
from tests.functional.token_support import (
    OK_HEADERS,
    TokenClient,
    allow_grant,
    assert_error,
    basic,
    body_of,
    claims_of,
    headers_of,
)
from tests.idp_support import TestIdp

if TYPE_CHECKING:
    from authgate.users.model import User

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
IDP = "https://acme.idp.example"
CLIENT = "demo-service"


def allow_jwt_bearer(client_id: str = CLIENT) -> None:
    """What `authgate clients update CLIENT --grant jwt-bearer` writes."""
    allow_grant(client_id, JWT_BEARER)


def trust(idp: TestIdp, tenant: str = "demo", **settings: Any) -> None:
    """What `authgate idps create --tenant TENANT --issuer ISS --jwks-file FILE` writes."""
    from authgate.identity_providers.model import IdentityProvider
    from authgate.stores.identity_providers import IdentityProviderStore

    keys = settings.pop("jwks", tuple(idp.jwks()["keys"]))
    IdentityProviderStore().create(IdentityProvider(tenant, idp.issuer, jwks=keys, **settings))


@pytest.fixture
def idp(tokens: TokenClient) -> TestIdp:
    register(MCP, ("mcp:read", "mcp:write"), granted_to=())
    allow_jwt_bearer()
    trusted = TestIdp(IDP)
    trust(trusted)
    return trusted


def jag(idp: TestIdp, **claims: Any) -> str:
    """An ID-JAG for demo-service and the MCP resource; `issued_ago` seconds before now (negative: ahead)."""
    if "issued_ago" in claims:
        claims["now"] = int(time.time()) - claims.pop("issued_ago")
    return idp.id_jag(audience=claims.pop("audience", ISSUER), client_id=claims.pop("client_id", CLIENT),
                      resource=claims.pop("resource", MCP), scope=claims.pop("scope", "mcp:read mcp:write"), **claims)


def present(tokens: TokenClient, assertion: str, client: str = CLIENT, **fields: str) -> dict[str, Any]:
    form = [("grant_type", JWT_BEARER), ("assertion", assertion), *fields.items()]
    return tokens.post(form, auth=basic(client, SECRETS[client]))


def assert_token(result: dict[str, Any], scope: str) -> dict[str, Any]:
    sent = headers_of(result)
    assert sent.pop("x-request-id")
    body = body_of(result)
    assert (result["statusCode"], sent, body) == (200, OK_HEADERS, {
        "access_token": body["access_token"], "token_type": "Bearer", "expires_in": 900, "scope": scope})
    return claims_of(body["access_token"])


def assert_refused(result: dict[str, Any], code: str, description: str) -> None:
    assert_error(result, 400, "invalid_grant", description, code=code)


UNKNOWN_SUBJECT = "The assertion's subject is not a user of this tenant."
# An account claims the assertion's email, and the IdP is not trusted to say it is the person's.
LINK_FIRST = ("The assertion's email is a user's of this tenant, and its identity provider is not trusted to say "
              "so: the person links the account first (signing in through the identity provider), or the tenant "
              "trusts the provider's verified emails (--trust-email) and the assertion says email_verified.")


def token_subject(user: User) -> str:
    from authgate.users.model import token_subject as subject

    return subject(user)


def subject_of(username: str) -> str:
    """The `sub` of a token for the demo tenant's user `username`."""
    from authgate.stores.users import UserStore

    user = UserStore().get("demo", username)
    assert user is not None
    return token_subject(user)


# --------------------------------------------------------------------------- the grant


def test_an_id_jag_gets_a_token_for_its_resource_and_user(tokens: TokenClient, idp: TestIdp) -> None:
    claims = assert_token(present(tokens, jag(idp)), "mcp:read mcp:write")
    # user_match sub: the assertion's sub is the username alice; the token's sub is her stable user_id.
    assert claims == {"iss": ISSUER, "sub": ALICE_ID, "username": "alice", "aud": MCP, "exp": claims["exp"],
                      "iat": claims["iat"], "jti": claims["jti"], "client_id": CLIENT, "scope": "mcp:read mcp:write",
                      "tenant": "demo", "grant_id": claims["grant_id"]}
    # Each ID-JAG is a grant of its own (the person's, made by their IdP).
    assert claims["grant_id"] != assert_token(present(tokens, jag(idp)), "mcp:read mcp:write")["grant_id"]


def test_the_request_may_narrow_the_scope_and_name_the_resource(tokens: TokenClient, idp: TestIdp) -> None:
    assert_token(present(tokens, jag(idp), scope="mcp:read", resource=MCP), "mcp:read")


def test_a_replayed_id_jag_is_refused(tokens: TokenClient, idp: TestIdp) -> None:
    assertion = jag(idp)
    assert present(tokens, assertion)["statusCode"] == 200
    assert_refused(present(tokens, assertion), "id_jag_replayed", "The assertion has already been used (RFC 7523 3).")


def test_a_refused_request_does_not_spend_the_id_jag(tokens: TokenClient, idp: TestIdp) -> None:
    assertion = jag(idp, scope="mcp:read")
    assert_error(present(tokens, assertion, scope="mcp:write"), 400, "invalid_scope",
                 "The scope 'mcp:write' exceeds the assertion's scope.")
    assert_token(present(tokens, assertion), "mcp:read")


def test_private_key_jwt_and_post_secrets_authenticate_too(tokens: TokenClient, idp: TestIdp) -> None:
    form = [("grant_type", JWT_BEARER), ("assertion", jag(idp)), ("client_id", CLIENT),
            ("client_secret", SECRETS[CLIENT])]
    assert_token(tokens.post(form), "mcp:read mcp:write")


@pytest.mark.parametrize(("change", "code", "description"), [
    ({"header": {"typ": "JWT"}}, "id_jag_type_invalid",
     "The assertion's typ must be oauth-id-jag+jwt (draft-ietf-oauth-identity-assertion-authz-grant; RFC 8725 3.11)."),
    ({"header": {"typ": None}}, "id_jag_type_invalid",
     "The assertion's typ must be oauth-id-jag+jwt (draft-ietf-oauth-identity-assertion-authz-grant; RFC 8725 3.11)."),
    ({"iss": "https://evil.example"}, "id_jag_issuer_untrusted",
     "The assertion's issuer is not an identity provider this client's tenant trusts (authgate idps create)."),
    ({"audience": "https://other-as.example"}, "id_jag_audience_invalid",
     "The assertion's aud is not this authorization server's issuer identifier (RFC 7523 3)."),
    ({"client_id": "demo-web"}, "id_jag_client_mismatch",
     "The assertion's client_id is not the authenticated client."),
    ({"issued_ago": 600, "lifetime": 300}, "id_jag_expired", "The assertion has expired (RFC 7523 3)."),
    ({"lifetime": 3600}, "id_jag_time_invalid", "The assertion's exp is more than 600 s ahead."),
    ({"issued_ago": -300}, "id_jag_time_invalid", "The assertion's iat is in the future."),
    ({"jti": None}, "id_jag_malformed", "The assertion needs a jti claim of 1 to 255 characters."),
    ({"resource": None}, "id_jag_resource_invalid",
     "The assertion names no resource (its resource claim, RFC 8707 2) for the token."),
    ({"subject": "mallory"}, "id_jag_user_unknown", "The assertion's subject is not a user of this tenant."),
    ({"auth_time": "yesterday"}, "id_jag_malformed", "The assertion's auth_time is not a NumericDate (OIDC Core 2)."),
    ({"auth_time": True}, "id_jag_malformed", "The assertion's auth_time is not a NumericDate (OIDC Core 2)."),
    ({"acr": 2}, "id_jag_malformed", "The assertion's acr is not a string (OIDC Core 2)."),
    ({"amr": "pwd"}, "id_jag_malformed", "The assertion's amr is not an array of strings (RFC 8176)."),
    ({"auth_time": int(time.time()) + 3600}, "id_jag_time_invalid", "The assertion's auth_time is in the future."),
])
def test_each_rule_of_the_draft_is_its_own_refusal(tokens: TokenClient, idp: TestIdp, change: dict[str, Any],
                                                   code: str, description: str) -> None:
    assert_refused(present(tokens, jag(idp, **change)), code, description)


def test_a_signature_by_an_untrusted_key_is_refused(tokens: TokenClient, idp: TestIdp) -> None:
    forger = TestIdp(IDP)  # same issuer, same kid, another key
    assert_refused(present(tokens, jag(forger)), "id_jag_signature_invalid",
                   "The assertion is not signed by a key of its identity provider.")
    unsigned = jag(idp).rsplit(".", 1)[0] + "."
    assert_refused(present(tokens, unsigned), "id_jag_signature_invalid",
                   "The assertion is not signed by a key of its identity provider.")


def test_an_idp_of_another_tenant_is_not_trusted(tokens: TokenClient, idp: TestIdp) -> None:
    other = TestIdp("https://acme-corp.idp.example")
    trust(other, tenant="acme")
    assert_refused(present(tokens, jag(other)), "id_jag_issuer_untrusted",
                   "The assertion's issuer is not an identity provider this client's tenant trusts "
                   "(authgate idps create).")


def test_another_resource_is_refused(tokens: TokenClient, idp: TestIdp) -> None:
    assert_refused(present(tokens, jag(idp), resource=f"{ISSUER}/charges"), "id_jag_resource_invalid",
                   "The resource parameter is not a resource the assertion was issued for.")
    assert_error(present(tokens, jag(idp, resource="https://unknown.example/api")), 400, "invalid_target",
                 "The resource https://unknown.example/api is not registered with this authorization server.",
                 code="unknown_resource")


def test_scope_is_checked_per_rfc_6749_3_3(tokens: TokenClient, idp: TestIdp) -> None:
    assert_error(present(tokens, jag(idp), scope="mcp:admin"), 400, "invalid_scope",
                 "The scope 'mcp:admin' exceeds the assertion's scope.")
    assert_error(present(tokens, jag(idp, scope="mcp:admin")), 400, "invalid_scope",
                 "None of the assertion's scopes is available for this resource.")


def test_create_users_makes_the_unknown_person_a_federated_only_user_linked_to_the_identity(
        tokens: TokenClient) -> None:
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore

    register(MCP, ("mcp:read",), granted_to=())
    allow_jwt_bearer()
    idp = TestIdp(IDP)
    trust(idp, create_users=True)
    seeded = {u.username for u in UserStore().of_tenant("demo")}
    claims = assert_token(present(tokens, jag(idp, subject="carol", email="carol@acme.example", name="Carol",
                                              scope="mcp:read")), "mcp:read")
    user = UserStore().get("demo", "carol")  # the subject: the IdP is not trusted for emails
    assert user is not None and claims["sub"] == token_subject(user)
    assert (user.email, user.email_verified, user.name, user.federated_only) == ("carol@acme.example", False, "Carol",
                                                                                  True)
    link = LinkedIdentityStore().get("demo", IDP, "carol")
    assert link is not None and (link.user_id, link.username, link.via) == (user.user_id, "carol", "provisioned")
    # The next assertion finds the person through the link: no second user.
    assert assert_token(present(tokens, jag(idp, subject="carol", scope="mcp:read")), "mcp:read")["sub"] == claims["sub"]
    assert {u.username for u in UserStore().of_tenant("demo")} == {*seeded, "carol"}


def test_a_linked_identity_is_its_user_whatever_its_subject_says(tokens: TokenClient, idp: TestIdp) -> None:
    """The link first: a subject that happens to be another user's username is the person it is linked to."""
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore
    from authgate.users.linked_identities import LinkedIdentity

    bob = UserStore().put_hash("demo", "bob", "!")
    LinkedIdentityStore().link(LinkedIdentity("demo", IDP, "alice", bob.user_id, "bob", 1, "proof"))
    assert assert_token(present(tokens, jag(idp)), "mcp:read mcp:write")["sub"] == token_subject(bob)
    UserStore().set_disabled("demo", "bob", True)
    assert_refused(present(tokens, jag(idp)), "id_jag_user_unknown", "The assertion's subject is disabled in this tenant.")


def test_user_match_sub_never_takes_a_user_made_for_another_idps_identity(tokens: TokenClient, idp: TestIdp) -> None:
    """IdP B's person was provisioned as "carol" (B's subject); this IdP's subject "carol" is not them."""
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.users.linked_identities import LinkedIdentity
    from authgate.users.model import User

    carol = User("demo", "carol", 0, 0, user_id="usr_carol", federated_only=True)
    LinkedIdentityStore().provision(carol, LinkedIdentity("demo", "https://idp-b.example", "carol", "usr_carol",
                                                          "carol", 1, "provisioned"))
    assert_refused(present(tokens, jag(idp, subject="carol")), "id_jag_user_unknown", UNKNOWN_SUBJECT)


def test_a_link_outlived_by_its_user_speaks_for_nobody_and_goes(tokens: TokenClient, idp: TestIdp) -> None:
    """A user replaced under the same username is another person: the link to the one before is removed."""
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore
    from authgate.users.linked_identities import LinkedIdentity

    bob = UserStore().put_hash("demo", "bob", "!")
    LinkedIdentityStore().link(LinkedIdentity("demo", IDP, "00u9", bob.user_id, "bob", 1, "proof"))
    UserStore().put_hash("demo", "bob", "!")
    assert_refused(present(tokens, jag(idp, subject="00u9")), "id_jag_user_unknown",
                   "The assertion's subject is not a user of this tenant.")
    assert LinkedIdentityStore().get("demo", IDP, "00u9") is None


def test_an_assertion_claiming_alices_email_never_speaks_for_alice(tokens: TokenClient) -> None:
    """The email takeover: an IdP that may create users but is not trusted for emails says its person, another
    subject, has alice's email (verified, it says). No token for alice, and no account made."""
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore

    register(MCP, ("mcp:read",), granted_to=())
    allow_jwt_bearer()
    idp = TestIdp(IDP)
    trust(idp, create_users=True)
    UserStore().update_profile("demo", "alice", email="alice@acme.example", email_verified=True)
    seeded = list(UserStore().of_tenant("demo"))
    for verified in (True, False):
        assert_refused(present(tokens, jag(idp, subject="mallory", email="Alice@acme.example", email_verified=verified,
                                           scope="mcp:read")), "id_jag_user_unknown", LINK_FIRST)
    assert LinkedIdentityStore().get("demo", IDP, "mallory") is None
    assert list(UserStore().of_tenant("demo")) == seeded


def test_email_matching_finds_the_user_by_a_verified_email_and_links_them(tokens: TokenClient) -> None:
    """--user-match email, written before --trust-email: read as trust in the IdP's verified emails. The assertion
    must say email_verified, and the account's own email be verified; the identity is then linked to it."""
    register(MCP, ("mcp:read",), granted_to=())
    allow_jwt_bearer()
    idp = TestIdp(IDP)
    trust(idp, user_match="email")
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore

    dave = UserStore().put_hash("demo", "dave", "!", email="dave@acme.example", email_verified=True)
    unverified = jag(idp, subject="00u1", email="Dave@Acme.example", scope="mcp:read")
    assert_refused(present(tokens, unverified), "id_jag_user_unknown", LINK_FIRST)
    claims = assert_token(present(tokens, jag(idp, subject="00u1", email="Dave@Acme.example", email_verified=True,
                                              scope="mcp:read")), "mcp:read")
    assert claims["sub"] == subject_of("dave")  # the user whose email it is, whatever the username
    link = LinkedIdentityStore().get("demo", IDP, "00u1")
    assert link is not None and (link.user_id, link.via) == (dave.user_id, "verified_email")
    # Linked: found through the link from now on, whatever its email says.
    assert assert_token(present(tokens, jag(idp, subject="00u1", scope="mcp:read")), "mcp:read")["sub"] == claims["sub"]
    UserStore().put_hash("demo", "dave-2", "!", email="DAVE@acme.example", email_verified=True)
    assert_refused(present(tokens, jag(idp, subject="00u2", email="dave@acme.example", email_verified=True,
                                       scope="mcp:read")),
                   "id_jag_user_unknown", "The assertion's email names more than one user of this tenant.")
    assert_refused(present(tokens, jag(idp, subject="00u3", scope="mcp:read")), "id_jag_user_unknown",
                   "The assertion carries no email claim to find its user by.")


def test_only_confidential_clients_allowed_the_grant(tokens: TokenClient, idp: TestIdp) -> None:
    assert_error(present(tokens, jag(idp, client_id="demo-reader"), client="demo-reader"), 400,
                 "unauthorized_client", f"This client may not use the {JWT_BEARER} grant.")


def test_keys_are_fetched_from_the_jwks_uri(tokens: TokenClient, server: DocumentServer,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The cold path: the IdP's JWKS URI fetched under the metadata-document fetcher's rules, then cached."""
    trust_documents(server, monkeypatch)
    register(MCP, ("mcp:read",), granted_to=())
    allow_jwt_bearer()
    idp = TestIdp(IDP)
    server.routes["/keys"] = Route(idp.jwks_json(), headers={"Content-Type": "application/jwk-set+json"})
    from authgate.identity_providers.model import IdentityProvider
    from authgate.stores.identity_providers import IdentityProviderStore

    IdentityProviderStore().create(IdentityProvider("demo", IDP, jwks_uri=server.url("/keys")))
    assert_token(present(tokens, jag(idp, scope="mcp:read")), "mcp:read")
    assert_token(present(tokens, jag(idp, scope="mcp:read")), "mcp:read")
    assert [path for path, _ in server.requests] == ["/keys"]


def test_keys_that_cannot_be_fetched_refuse_the_assertion(tokens: TokenClient) -> None:
    register(MCP, ("mcp:read",), granted_to=())
    allow_jwt_bearer()
    idp = TestIdp(IDP)
    from authgate.identity_providers.model import IdentityProvider
    from authgate.stores.identity_providers import IdentityProviderStore

    # A private address: never fetched (the metadata-document fetcher's SSRF rules).
    IdentityProviderStore().create(IdentityProvider("demo", IDP, jwks_uri="https://10.0.0.1/keys"))
    assert_refused(present(tokens, jag(idp, scope="mcp:read")), "id_jag_keys_unavailable",
                   "The identity provider's signing keys could not be fetched; the assertion cannot be verified now.")


def test_metadata_advertises_the_grant_and_the_profile(tokens: TokenClient, invoke: Any) -> None:
    from authgate_cli.local.events import HttpRequest, build_event
    from tests.demo import body

    path = "/.well-known/oauth-authorization-server"
    event = build_event(HttpRequest("GET", path, "", [("Host", "127.0.0.1:3000")], b""), resource=path,
                        path_params=None)
    doc = body(invoke("jwks", event))
    assert JWT_BEARER in doc["grant_types_supported"]
    assert doc["authorization_grant_profiles_supported"] == ["urn:ietf:params:oauth:grant-profile:id-jag"]


MFA_VALUES = ("urn:acme:loa:2fa", "mfa")


@pytest.mark.parametrize(("trusted", "stated", "acr"), [
    (True, {"acr": "urn:acme:loa:2fa", "amr": ["pwd", "otp"]}, "mfa"),  # a value the record says means mfa
    (True, {"amr": ["pwd", "otp", "mfa"]}, "mfa"),
    (True, {"amr": ["pwd"]}, "password"),
    (True, {"acr": "urn:acme:loa:1"}, "password"),  # stated, and not a value that means mfa
    # An IdP not trusted for mfa: whatever it says, authgate's own "mfa" included, is a password.
    (False, {"acr": "mfa", "amr": ["pwd", "otp", "mfa"]}, "password"),
    (False, {"acr": "urn:acme:loa:2fa"}, "password"),
])
def test_the_idps_sign_in_is_carried_into_the_token_as_far_as_the_idp_is_trusted(
        tokens: TokenClient, trusted: bool, stated: dict[str, Any], acr: str) -> None:
    """RFC 9068 2.2.1: the token states the person's sign-in at the IdP when the ID-JAG does; it is mfa only for an
    IdP trusted for it (--trust-mfa VALUES), password otherwise."""
    register(MCP, ("mcp:read", "mcp:write"), granted_to=())
    allow_jwt_bearer()
    idp = TestIdp(IDP)
    trust(idp, **({"trust_mfa": True, "mfa_values": MFA_VALUES} if trusted else {}))
    signed_in = int(time.time()) - 30
    claims = assert_token(present(tokens, jag(idp, auth_time=signed_in, **stated)), "mcp:read mcp:write")
    assert (claims["acr"], claims["auth_time"]) == (acr, signed_in)
    bare = assert_token(present(tokens, jag(idp)), "mcp:read mcp:write")
    assert "acr" not in bare and "auth_time" not in bare


@pytest.mark.parametrize("trusted", [True, False])
def test_step_up_at_charges_judges_an_agents_token_by_the_idps_sign_in(tokens: TokenClient, demo: Any, invoke: Any,
                                                                      trusted: bool) -> None:
    """RFC 9470: a charge above the demo tenant's threshold (10000) needs acr mfa and a sign-in at most 300 s old;
    an ID-JAG is mfa only from an IdP trusted for it."""
    register(MCP, ("mcp:read",), granted_to=())
    allow_jwt_bearer()
    idp = TestIdp(IDP)
    trust(idp, **({"trust_mfa": True, "mfa_values": MFA_VALUES} if trusted else {}))

    def charge(**stated: Any) -> dict[str, Any]:
        token = body_of(present(tokens, jag(idp, resource=f"{ISSUER}/charges", scope="charges:write", **stated)))
        return dict(invoke("charges", demo.event("POST", body={"amount": 10000, "currency": "usd", "description": "Sofa"},
                                                 client=None, headers={"Authorization": f"Bearer {token['access_token']}"})))

    fresh = int(time.time()) - 30
    strong = charge(auth_time=fresh, amr=["pwd", "otp", "mfa"])
    weak = charge(auth_time=fresh, amr=["pwd"])
    stale = charge(auth_time=fresh - 600, amr=["pwd", "otp", "mfa"])
    assert strong["statusCode"] == (201 if trusted else 401)
    for refused in (weak, stale, charge(), *(() if trusted else (strong,))):
        assert refused["statusCode"] == 401
        assert 'error="insufficient_user_authentication"' in headers_of(refused)["WWW-Authenticate"]


def test_the_user_read_with_the_client_is_current(tokens: TokenClient, idp: TestIdp) -> None:
    """No cache of users: one deleted since the last grant is refused at once, one created is found at once, one
    disabled by the tenant's administrator is refused (docs/users.md)."""
    from authgate.stores.users import UserStore

    assert_token(present(tokens, jag(idp)), "mcp:read mcp:write")
    UserStore().delete("demo", "alice")
    assert_refused(present(tokens, jag(idp)), "id_jag_user_unknown",
                   "The assertion's subject is not a user of this tenant.")
    again = UserStore().put_hash("demo", "alice", "!")  # another person under the name: another user_id
    assert assert_token(present(tokens, jag(idp)), "mcp:read mcp:write")["sub"] == again.user_id != ALICE_ID
    UserStore().set_disabled("demo", "alice", True)
    assert_refused(present(tokens, jag(idp)), "id_jag_user_unknown", "The assertion's subject is disabled in this tenant.")
