"""DPoP through `authgate serve` over real HTTP: requests for transport, joserfc for proofs (RFC 9449).

A DPoP-bound token from /oauth/token, a DPoP call to /charges, the resource metadata its challenge
points at, and the attacks a network attacker would try, each answered in the error contract
(ContractSession checks every response).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import requests

from tests.contract import ContractSession
from tests.dpop_support import DpopKey

pytestmark = pytest.mark.e2e

API_KEY = {"x-api-key": "demo-api-key"}


@pytest.fixture
def http(base_url: str) -> Iterator[ContractSession]:
    with ContractSession(base_url) as session:
        yield session


def dpop_token(http: ContractSession, base_url: str, key: DpopKey) -> str:
    r = http.post("/oauth/token", auth=("demo-service", "demo-service-secret"),
                  data={"grant_type": "client_credentials", "scope": "charges:read",
                        "resource": f"{base_url}/charges"},
                  headers={"DPoP": key.proof("POST", f"{base_url}/oauth/token")})
    assert (r.status_code, r.json()["token_type"]) == (200, "DPoP"), r.text
    return str(r.json()["access_token"])


def test_dpop_token_then_charges_then_the_attacks(http: ContractSession, base_url: str) -> None:
    key = DpopKey()
    token = dpop_token(http, base_url, key)
    url = f"{base_url}/charges"

    proof = key.proof("GET", url, access_token=token)
    r = http.get("/charges", headers={**API_KEY, "Authorization": f"DPoP {token}", "DPoP": proof})
    assert (r.status_code, r.headers["Content-Type"]) == (200, "application/json"), r.text

    # Replayed proof.
    r = http.get("/charges", headers={**API_KEY, "Authorization": f"DPoP {token}", "DPoP": proof})
    assert (r.status_code, r.json()["code"], r.headers["WWW-Authenticate"].split(",")[0:2]) == (
        401, "invalid_dpop_proof", ['DPoP algs="ES256 EdDSA RS256 PS256"', ' error="invalid_dpop_proof"'])

    # The bound token as a bearer token.
    r = http.get("/charges", headers={**API_KEY, "Authorization": f"Bearer {token}"})
    assert (r.status_code, r.json()["code"]) == (401, "invalid_token")

    # A proof for another method, by another key, with an expired iat.
    for bad in (key.proof("POST", url, access_token=token),
                DpopKey().proof("GET", url, access_token=token),
                key.proof("GET", url, access_token=token, iat=int(time.time()) - 300)):
        r = http.get("/charges", headers={**API_KEY, "Authorization": f"DPoP {token}", "DPoP": bad})
        assert (r.status_code, r.json()["code"]) == (401, "invalid_dpop_proof")


def test_challenge_leads_to_the_resource_metadata_and_the_authorization_server(http: ContractSession,
                                                                               base_url: str) -> None:
    r = http.get("/charges", headers=API_KEY)
    assert r.status_code == 401
    challenge = r.headers["WWW-Authenticate"]
    metadata_url = challenge.split('resource_metadata="')[1].split('"')[0]
    assert metadata_url == f"{base_url}/.well-known/oauth-protected-resource/charges"
    document = requests.get(metadata_url, timeout=10).json()
    assert (document["resource"], document["authorization_servers"]) == (f"{base_url}/charges", [base_url])
    server = requests.get(f"{base_url}/.well-known/oauth-authorization-server", timeout=10).json()
    assert server["dpop_signing_alg_values_supported"] == ["ES256", "EdDSA", "RS256", "PS256"]
