"""A software WebAuthn authenticator for the tests: real attestation and assertion objects, built by hand.

An ES256 key (cryptography), authenticator data laid out as WebAuthn Level 3 6.1 says, a "none"
attestation (8.7) packed with CBOR, and client data JSON (5.8.1). It is the test's authenticator,
not the project's code: authgate's ceremonies (py_webauthn) must accept what it makes and refuse
what it makes wrong.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from authgate import base64url

UP, UV, BE, BS, AT = 0x01, 0x04, 0x08, 0x10, 0x40
AAGUID = bytes(range(16))


class SoftAuthenticator:
    """One credential on one device: its key, id and counter."""

    def __init__(self, rp_id: str = "localhost", origin: str = "http://localhost:3000", *,
                 synced: bool = False, counter: int = 0) -> None:
        self.rp_id, self.origin, self.synced, self.counter = rp_id, origin, synced, counter
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(16)
        self.user_handle = b""

    @property
    def id(self) -> str:
        return base64url.encode(self.credential_id)

    def _cose_key(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})

    def _auth_data(self, flags: int, attested: bool, rp_id: str | None = None) -> bytes:
        flags |= (BE | BS) if self.synced else 0
        data = hashlib.sha256((rp_id or self.rp_id).encode()).digest() + bytes([flags | (AT if attested else 0)])
        data += self.counter.to_bytes(4, "big")
        if attested:
            data += AAGUID + len(self.credential_id).to_bytes(2, "big") + self.credential_id + self._cose_key()
        return data

    def _client_data(self, kind: str, challenge: bytes, origin: str | None) -> bytes:
        return json.dumps({"type": kind, "challenge": base64url.encode(challenge), "origin": origin or self.origin,
                           "crossOrigin": False}).encode()

    def register(self, challenge: bytes, *, user_handle: bytes = b"user-1", verified: bool = True,
                 origin: str | None = None) -> dict[str, Any]:
        """navigator.credentials.create()'s result, as JSON (WebAuthn 5.1, toJSON)."""
        self.user_handle = user_handle
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {},
                                   "authData": self._auth_data(UP | (UV if verified else 0), attested=True)})
        return {"id": self.id, "rawId": self.id, "type": "public-key", "authenticatorAttachment": "platform",
                "clientExtensionResults": {}, "response": {
                    "clientDataJSON": base64url.encode(self._client_data("webauthn.create", challenge, origin)),
                    "attestationObject": base64url.encode(attestation), "transports": ["internal", "hybrid"]}}

    def assertion(self, challenge: bytes, *, verified: bool = True, counter: int | None = None,
                  origin: str | None = None, rp_id: str | None = None, tamper: bool = False) -> dict[str, Any]:
        """navigator.credentials.get()'s result, as JSON; the counter moves forward unless given."""
        self.counter = self.counter + 1 if counter is None else counter
        auth_data = self._auth_data(UP | (UV if verified else 0), attested=False, rp_id=rp_id)
        client_data = self._client_data("webauthn.get", challenge, origin)
        signature = self.key.sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        if tamper:
            signature = signature[:-1] + bytes([signature[-1] ^ 1])
        return {"id": self.id, "rawId": self.id, "type": "public-key", "authenticatorAttachment": "platform",
                "clientExtensionResults": {}, "response": {
                    "clientDataJSON": base64url.encode(client_data), "authenticatorData": base64url.encode(auth_data),
                    "signature": base64url.encode(signature), "userHandle": base64url.encode(self.user_handle)}}
