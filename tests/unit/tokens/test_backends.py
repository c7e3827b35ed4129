"""tokens.backends: the backend named by a key record creates, signs with and destroys its keys.

Each backend round trip is checked by joserfc, an independent JOSE library, against the public JWK it returned.
"""

from __future__ import annotations

import json

import boto3
import pytest
from joserfc import jws
from joserfc.jwk import import_key

from authgate.base64url import encode as b64
from authgate.stores.signing_keys import CURRENT, KeyRecord
from authgate.tokens.backends import backend
from authgate.tokens.kms_backend import KmsBackend
from authgate.tokens.local_backend import LocalBackend


def test_each_name_is_its_backend(aws: None) -> None:
    assert type(backend("local")) is LocalBackend
    assert type(backend("kms")) is KmsBackend


@pytest.mark.parametrize("name", ["", "LOCAL", "hsm", "kms "])
def test_an_unknown_backend_is_refused(name: str) -> None:
    with pytest.raises(ValueError) as info:
        backend(name)
    assert str(info.value) == f"unknown signing backend {name!r}"


def sign_and_verify(name: str, alg: str, kid: str) -> KeyRecord:
    refs, public = backend(name).create_key(kid, alg)
    assert public["kid"] == kid and public["alg"] == alg
    assert not {"d", "p", "q", "dp", "dq", "qi"} & set(public)  # the public JWK only
    record = KeyRecord(kid=kid, state=CURRENT, alg=alg, backend=name, public_jwk=json.dumps(public), created_at=1,
                       activates_at=1, secret_id=refs.get("secret_id", ""), kms_key_id=refs.get("kms_key_id", ""))
    signer = backend(name).load_signer(record)  # a fresh backend instance: loaded from where the key lives
    assert (signer.kid, signer.alg) == (kid, alg)
    signing_input = b64(json.dumps({"alg": alg, "kid": kid}).encode()) + "." + b64(b'{"sub":"x"}')
    token = signing_input + "." + b64(signer.sign(signing_input.encode()))
    verified = jws.deserialize_compact(token, import_key(public), algorithms=[alg])
    assert verified.payload == b'{"sub":"x"}'
    return record


@pytest.mark.parametrize("alg", ["RS256", "ES256"])
def test_a_local_key_signs_verifiably_and_is_destroyed_with_its_secret(aws: None, alg: str) -> None:
    record = sign_and_verify("local", alg, f"local-{alg}")
    secrets = boto3.client("secretsmanager")
    assert "DeletedDate" not in secrets.describe_secret(SecretId=record.secret_id)
    backend("local").destroy(record)
    assert "DeletedDate" in secrets.describe_secret(SecretId=record.secret_id)
    backend("local").destroy(record)  # again: already scheduled, not an error


@pytest.mark.parametrize("alg", ["RS256", "ES256"])
def test_a_kms_key_signs_verifiably_and_is_scheduled_for_deletion(aws: None, alg: str) -> None:
    record = sign_and_verify("kms", alg, f"kms-{alg}")
    kms = boto3.client("kms")
    assert kms.describe_key(KeyId=record.kms_key_id)["KeyMetadata"]["KeyState"] == "Enabled"
    backend("kms").destroy(record)
    assert kms.describe_key(KeyId=record.kms_key_id)["KeyMetadata"]["KeyState"] == "PendingDeletion"
    backend("kms").destroy(record)  # again: already pending, not an error
