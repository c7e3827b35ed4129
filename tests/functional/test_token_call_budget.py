"""DynamoDB calls per successful token request, counted with botocore event hooks (warm function).

Budget: client_credentials <= 2, authorization_code <= 3, refresh_token <= 3, token exchange <= 2, ID-JAG <= 2. The client record
and the failed-authentication counters come in one BatchGetItem; secrets are a single SHA-256.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.demo import ISSUER, SECRETS
from tests.functional.token_support import (
    TokenClient,
    basic,
    body_of,
    dynamodb_calls,
    grant,
    new_code,
)

IDP = "https://idp.example"


@pytest.fixture
def calls(tokens: TokenClient) -> Iterator[Counter[str]]:
    tokens.client_credentials()  # warm: signing key cached as in a warm Lambda
    with dynamodb_calls() as seen:
        yield seen


def test_client_credentials_costs_one_call_when_warm(tokens: TokenClient, calls: Counter[str]) -> None:
    assert tokens.client_credentials()["statusCode"] == 200
    # The tenant is warm-cached (authgate.stores.tenant_cache), so a warm request makes one call.
    assert calls == Counter({"BatchGetItem": 1})


def test_recording_the_token_calls_no_aws_service(tokens: TokenClient, calls: Counter[str], audit_events: Any) -> None:
    """docs/audit.md: recording is a log line: no DynamoDB call and no call of any other service."""
    from contextlib import ExitStack

    from tests.functional.token_support import aws_calls

    with ExitStack() as stack:
        others = [stack.enter_context(aws_calls(service))
                  for service in ("secretsmanager", "kms", "sesv2", "sqs", "s3", "events")]
        assert tokens.client_credentials()["statusCode"] == 200
    assert calls == Counter({"BatchGetItem": 1})
    assert others == [Counter()] * 6
    assert [e["action"] for e in audit_events()] == ["token.issued"]


def test_code_exchange_costs_three_calls(tokens: TokenClient, calls: Counter[str]) -> None:
    code = new_code()
    calls.clear()
    assert tokens.exchange(code)["statusCode"] == 200
    assert calls == Counter({"BatchGetItem": 1, "UpdateItem": 1, "TransactWriteItems": 1})


def test_refresh_costs_four_calls(tokens: TokenClient, calls: Counter[str]) -> None:
    """The token's GetItem, then its user's (deleted, disabled or sessions ended: docs/users.md)."""
    first = body_of(tokens.exchange(new_code()))
    calls.clear()
    assert tokens.refresh(first["refresh_token"])["statusCode"] == 200
    assert calls == Counter({"BatchGetItem": 1, "GetItem": 2, "TransactWriteItems": 1})


def test_a_registered_resource_costs_one_get_per_cache_miss(tokens: TokenClient, calls: Counter[str]) -> None:
    """The resource's record comes from a 60 s warm cache (authgate.stores.resource_cache)."""
    from authgate.resources.model import Resource
    from authgate.stores.resources import ResourceStore

    ResourceStore().create(Resource("https://mcp.example.com/mcp", ("mcp:read",)))
    grant("demo-service", "https://mcp.example.com/mcp", ("mcp:read",))
    calls.clear()
    for expected in (Counter({"BatchGetItem": 1, "GetItem": 1}), Counter({"BatchGetItem": 1})):
        result = tokens.post([("grant_type", "client_credentials"), ("resource", "https://mcp.example.com/mcp")],
                             auth=basic("demo-service", SECRETS["demo-service"]))
        assert (result["statusCode"], calls) == (200, expected)
        calls.clear()


def test_a_warm_token_exchange_costs_two_calls(tokens: TokenClient, calls: Counter[str]) -> None:
    """RFC 8693: the resource's credentials (client + counters) and the subject token's revocation records and
    client, one BatchGetItem each; the acting resource, the target and the tenant come from warm caches."""
    from authgate.stores.resources import ResourceStore
    from tests.functional.resource_support import MCP, register

    creds = register(MCP, ("charges:read",), granted_to=("demo-service",))
    store = ResourceStore()
    resource = store.get(MCP)
    assert resource is not None
    store.update(resource._replace(may_delegate_to=(f"{ISSUER}/charges",)))
    subject = body_of(tokens.post([("grant_type", "client_credentials"), ("resource", MCP)],
                                  auth=basic("demo-service", SECRETS["demo-service"])))["access_token"]
    form = [("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("subject_token", subject),
            ("subject_token_type", "urn:ietf:params:oauth:token-type:access_token"),
            ("resource", f"{ISSUER}/charges")]
    assert tokens.post(form, auth=basic(*creds))["statusCode"] == 200  # warms the resource caches
    calls.clear()
    assert tokens.post(form, auth=basic(*creds))["statusCode"] == 200
    assert calls == Counter({"BatchGetItem": 2})


def id_jag_presenter(tokens: TokenClient, subject: str = "alice") -> Callable[[], dict[str, Any]]:
    """demo-service allowed the ID-JAG grant for a registered MCP resource, an IdP the demo tenant trusts, and a
    function presenting a new ID-JAG of `subject` from it."""
    from authgate.identity_providers.model import IdentityProvider
    from authgate.stores.clients import ClientStore
    from authgate.stores.identity_providers import IdentityProviderStore
    from tests.functional.resource_support import MCP, register
    from tests.idp_support import TestIdp

    register(MCP, ("mcp:read",), granted_to=())
    store = ClientStore()
    client = store.get("demo-service")
    assert client is not None
    store.replace(client._replace(grant_types=(*client.grant_types, "urn:ietf:params:oauth:grant-type:jwt-bearer")))
    idp = TestIdp(IDP)
    IdentityProviderStore().create(IdentityProvider("demo", idp.issuer, jwks=tuple(idp.jwks()["keys"])))

    def present() -> dict[str, Any]:
        assertion = idp.id_jag(audience=ISSUER, client_id="demo-service", subject=subject, resource=MCP,
                               scope="mcp:read")
        return tokens.post([("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", assertion)],
                           auth=basic("demo-service", SECRETS["demo-service"]))

    return present


def test_a_warm_id_jag_grant_costs_two_calls(tokens: TokenClient, calls: Counter[str]) -> None:
    """The client (+ counters, + the user: --user-match sub) BatchGetItem and the jti's conditional PutItem; the
    IdP, its keys, the resource and the tenant come from warm caches (docs/delegation.md, "Cost")."""
    present = id_jag_presenter(tokens)
    assert present()["statusCode"] == 200  # warms the IdP, resource and tenant caches and the client's tenant
    calls.clear()
    assert present()["statusCode"] == 200
    assert calls == Counter({"BatchGetItem": 1, "PutItem": 1})


def test_a_warm_id_jag_of_a_linked_person_costs_two_calls(tokens: TokenClient, calls: Counter[str]) -> None:
    """The person found through their linked identity (authgate.federation.identities): the link and its user come
    in the client's batch, the user by the username this function last found for the identity."""
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore
    from authgate.users.linked_identities import LinkedIdentity

    present = id_jag_presenter(tokens, subject="00u-alice")
    alice = UserStore().get("demo", "alice")
    assert alice is not None
    LinkedIdentityStore().link(LinkedIdentity("demo", IDP, "00u-alice", alice.user_id, "alice", 1, "proof"))
    assert present()["statusCode"] == 200  # warms the caches, the client's tenant and the identity's username
    for _ in range(2):
        calls.clear()
        assert present()["statusCode"] == 200
        assert calls == Counter({"BatchGetItem": 1, "PutItem": 1})
