"""A Shared Signals receiver written from the specifications alone (OpenID Shared Signals Framework 1.0, RFC 8935,
RFC 8936, RFC 8417, RFC 9493), for the end-to-end tests: it knows the transmitter's issuer and its own OAuth
client, and nothing of authgate's code.

It reads the transmitter configuration (SSF 1.0 7.2), gets an access token with the client
credentials grant (RFC 6749 4.4, the `urn:ietf:rfc:6749` authorization scheme, 7.1.1), creates a
stream (8.1.1.1), asks for verification (8.1.4.2), takes pushed SETs on an HTTPS endpoint that
answers 202 (RFC 8935 2.2), polls and acknowledges (RFC 8936 2.4), and verifies every SET the way
SSF 1.0 4.1 asks: signature against the transmitter's JWKS (PyJWT's PyJWKClient), `typ`
secevent+jwt, `iss` the issuer, `aud` itself, no `sub` and no `exp`, one event.
"""

from __future__ import annotations

import time
from typing import Any

import jwt
import requests

from tests.document_server import DocumentServer, Route

PUSH, POLL = "urn:ietf:rfc:8935", "urn:ietf:rfc:8936"
SESSION_REVOKED = "https://schemas.openid.net/secevent/caep/event-type/session-revoked"
CREDENTIAL_CHANGE = "https://schemas.openid.net/secevent/caep/event-type/credential-change"
VERIFICATION = "https://schemas.openid.net/secevent/ssf/event-type/verification"
ACCOUNT_DISABLED = "https://schemas.openid.net/secevent/risc/event-type/account-disabled"
ACCOUNT_ENABLED = "https://schemas.openid.net/secevent/risc/event-type/account-enabled"


class Receiver:
    """One receiver: its client credentials, the resource its tokens are for, and what it received."""

    def __init__(self, issuer: str, client_id: str, secret: str, resource: str) -> None:
        self.issuer, self.client_id, self.secret, self.resource = issuer, client_id, secret, resource
        # SSF 1.0 7.2: the well-known string inserted after the host (no path here).
        self.configuration: dict[str, Any] = requests.get(f"{issuer}/.well-known/ssf-configuration",
                                                          timeout=10).json()
        assert self.configuration["issuer"] == issuer  # 7.2.4
        self.keys = jwt.PyJWKClient(self.configuration["jwks_uri"], cache_jwk_set=False)
        self.stream: dict[str, Any] = {}

    def _headers(self) -> dict[str, str]:
        answer = requests.post(f"{self.issuer}/oauth/token", auth=(self.client_id, self.secret), timeout=10,
                               data={"grant_type": "client_credentials", "scope": "ssf:manage",
                                     "resource": self.resource})
        assert answer.status_code == 200, answer.text
        return {"Authorization": f"Bearer {answer.json()['access_token']}"}

    def create_stream(self, events: list[str], push_to: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"events_requested": events, "description": f"{self.client_id}'s stream"}
        if push_to:
            body["delivery"] = {"method": PUSH, "endpoint_url": push_to}
        answer = requests.post(self.configuration["configuration_endpoint"], json=body, headers=self._headers(),
                               timeout=10)
        assert answer.status_code == 201, answer.text
        self.stream = answer.json()
        assert (self.stream["iss"], self.stream["aud"]) == (self.issuer, self.client_id)  # 8.1.1.1
        return self.stream

    def read_stream(self) -> requests.Response:
        return requests.get(self.configuration["configuration_endpoint"], headers=self._headers(), timeout=10,
                            params={"stream_id": self.stream["stream_id"]})

    def verify(self, state: str) -> requests.Response:
        return requests.post(self.configuration["verification_endpoint"], headers=self._headers(), timeout=10,
                             json={"stream_id": self.stream["stream_id"], "state": state})

    def poll(self, ack: list[str] | None = None, *, immediately: bool = False) -> dict[str, Any]:
        """RFC 8936 2.4: one poll, acknowledging `ack`."""
        answer = requests.post(self.stream["delivery"]["endpoint_url"], headers=self._headers(), timeout=20,
                               json={"ack": ack or [], "maxEvents": 10, "returnImmediately": immediately})
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    def checked(self, token: str) -> dict[str, Any]:
        """A SET's claims once verified as SSF 1.0 4.1 asks, or an assertion error."""
        header = jwt.get_unverified_header(token)
        assert header["typ"] == "secevent+jwt"  # 4.1.1
        key = self.keys.get_signing_key_from_jwt(token)
        claims: dict[str, Any] = jwt.decode(token, key.key, algorithms=[header["alg"]], audience=self.client_id,
                                            issuer=self.issuer, options={"require": ["iss", "iat", "jti", "aud",
                                                                                     "events", "sub_id"]})
        assert "sub" not in claims and "exp" not in claims  # 4.1.2, 4.1.7
        assert len(claims["events"]) == 1  # 4.2.1
        return claims


def polled(receiver: Receiver, count: int, wait: float = 10.0) -> list[dict[str, Any]]:
    """The claims of the next `count` SETs the receiver polls (each verified, then acknowledged), once they all
    arrived; an assertion error after `wait` seconds."""
    deadline, found = time.monotonic() + wait, []
    while len(found) < count and time.monotonic() < deadline:
        answer = receiver.poll(immediately=True)
        found += [receiver.checked(token) for token in answer["sets"].values()]
        if answer["sets"]:
            receiver.poll(ack=list(answer["sets"]), immediately=True)
        else:
            time.sleep(0.1)
    assert len(found) == count, found
    return found


def pushed(server: DocumentServer, path: str, count: int = 1, wait: float = 20.0) -> list[str]:
    """The SETs pushed to `path` once `count` arrived (RFC 8935 2.1: application/secevent+jwt bodies)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        sets = [body.decode("ascii") for where, kind, body in server.posts
                if where == path and kind == "application/secevent+jwt"]
        if len(sets) >= count:
            return sets
        time.sleep(0.1)
    raise AssertionError(f"{len(server.posts)} posts, not {count} SETs at {path}")


def accepting(server: DocumentServer, path: str) -> str:
    """`path` answers every push with 202 Accepted (RFC 8935 2.2); its https URL."""
    server.post_answers[path] = [Route(b"", 202, {})]
    return server.url(path)
