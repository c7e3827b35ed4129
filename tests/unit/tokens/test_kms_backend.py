"""authgate.tokens.kms_backend: a new key works on the first deploy (its own policy names the roles;
a key or role not visible yet right after CreateKey is retried, within bounds)."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from authgate.tokens import kms_backend
from authgate.tokens.kms_backend import KmsBackend

SIGNER = "arn:aws:iam::123456789012:role/authgate-staging-TokenFunctionRole-AB12"
ADMIN = "arn:aws:iam::123456789012:role/authgate-staging-RotateKeysFunctionRole-CD34"


def refuse_first(client: Any, operation: str, code: str, times: int) -> list[str]:
    """Make the real (moto) client answer `code` to the first `times` calls of `operation`, as KMS
    does right after CreateKey (eventual consistency); later calls go through."""
    seen: list[str] = []

    def before_call(**kwargs: Any) -> Any:
        seen.append(operation)
        if len(seen) <= times:
            error = {"Error": {"Code": code, "Message": "not yet"}, "ResponseMetadata": {"HTTPStatusCode": 400}}
            return _Http(400), error
        return None

    client.meta.events.register(f"before-call.kms.{operation}", before_call)
    return seen


class _Http:
    def __init__(self, status: int) -> None:
        self.status_code = status
        self.headers: dict[str, str] = {}


@pytest.fixture
def roles(monkeypatch: pytest.MonkeyPatch, aws: None) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_KMS_SIGNER_ROLE", SIGNER)
    monkeypatch.setenv("AUTHGATE_KMS_ADMIN_ROLE", ADMIN)
    monkeypatch.setattr(kms_backend, "NOT_YET_VISIBLE_BACKOFF", (0.0,) * len(kms_backend.NOT_YET_VISIBLE_BACKOFF))
    caches.reset()


@pytest.mark.parametrize("code", ["NotFoundException", "AccessDeniedException"])
def test_a_key_not_yet_visible_after_createkey_is_retried(roles: None, code: str) -> None:
    from authgate.aws import kms

    client = kms()
    seen = refuse_first(client, "GetPublicKey", code, times=3)
    refs, jwk = KmsBackend(client).create_key("k1", "ES256")
    assert len(seen) == 4 and jwk["kid"] == "k1" and jwk["crv"] == "P-256"
    policy = json.loads(client.get_key_policy(KeyId=refs["kms_key_id"], PolicyName="default")["Policy"])
    assert [(s["Sid"], s["Principal"]["AWS"], s["Action"]) for s in policy["Statement"]] == [
        ("AccountAdministersThroughIam", "arn:aws:iam::123456789012:root", "kms:*"),
        ("TokenFunctionSigns", SIGNER, "kms:Sign"),
        ("RotationReadsAndRetires", ADMIN, ["kms:GetPublicKey", "kms:ScheduleKeyDeletion"])]
    metadata = client.describe_key(KeyId=refs["kms_key_id"])["KeyMetadata"]
    assert (metadata["KeySpec"], metadata["KeyUsage"], metadata["Origin"]) == ("ECC_NIST_P256", "SIGN_VERIFY", "AWS_KMS")


def test_a_role_not_yet_a_valid_principal_is_retried_at_createkey(roles: None) -> None:
    from authgate.aws import kms

    client = kms()
    seen = refuse_first(client, "CreateKey", "MalformedPolicyDocumentException", times=2)
    KmsBackend(client).create_key("k1", "RS256")
    assert len(seen) == 3


def test_the_retry_is_bounded_and_other_errors_are_not_retried(roles: None) -> None:
    from authgate.aws import kms

    client = kms()
    seen = refuse_first(client, "GetPublicKey", "NotFoundException", times=100)
    with pytest.raises(ClientError, match="NotFoundException"):
        KmsBackend(client).create_key("k1", "RS256")
    assert len(seen) == len(kms_backend.NOT_YET_VISIBLE_BACKOFF) + 1

    other = boto3.client("kms", region_name="us-east-1")
    refused = refuse_first(other, "GetPublicKey", "KMSInvalidStateException", times=100)
    with pytest.raises(ClientError, match="KMSInvalidStateException"):
        KmsBackend(other).create_key("k2", "RS256")
    assert len(refused) == 1


def test_without_roles_the_key_keeps_kms_default_policy(aws: None) -> None:
    from authgate.aws import kms

    refs, _ = KmsBackend(kms()).create_key("k1", "RS256")
    policy = json.loads(kms().get_key_policy(KeyId=refs["kms_key_id"], PolicyName="default")["Policy"])
    assert [s["Principal"]["AWS"] for s in policy["Statement"]] == ["arn:aws:iam::123456789012:root"]


def test_a_throttled_sign_is_storage_unavailable_not_a_500(roles: None) -> None:
    """The account's KMS quota is shared: a throttled Sign becomes a 503 with Retry-After."""
    from authgate.aws import kms
    from authgate.stores.exceptions import StorageUnavailable
    from authgate.stores.signing_keys import KeyRecord

    client = kms()
    refs, _ = KmsBackend(client).create_key("k1", "RS256")
    record = KeyRecord(kid="k1", state="current", alg="RS256", backend="kms", public_jwk="{}", created_at=1,
                       activates_at=1, kms_key_id=refs["kms_key_id"])
    signer = KmsBackend(client).load_signer(record)
    refuse_first(client, "Sign", "ThrottlingException", times=1)
    with pytest.raises(StorageUnavailable):
        signer.sign(b"header.payload")
    assert len(signer.sign(b"header.payload")) == 256


def test_an_es256_kms_stack_keeps_an_rsa_key_for_id_tokens_under_the_same_policy(
        roles: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """OIDC Discovery 1.0 3: the RS256 key of an ES256 stack is an RSA_2048 SIGN_VERIFY key whose policy names the
    same roles; an ID token it signs (KMS Sign, RSASSA_PKCS1_V1_5_SHA_256) verifies with PyJWT against its JWK."""
    import jwt

    from authgate import caches
    from authgate.aws import kms
    from authgate.oauth.token.id_token import issue_id_token
    from authgate.single_use.authentication import Authentication
    from authgate.tokens.jwk_set import jwk_set
    from authgate.tokens.rotation import rotate

    monkeypatch.setenv("AUTHGATE_SIGNING_BACKEND", "kms")
    monkeypatch.setenv("AUTHGATE_SIGNING_ALG", "ES256")
    caches.reset()
    report = rotate()
    specs = {}
    for key in report.keys:
        metadata = kms().describe_key(KeyId=key.kms_key_id)["KeyMetadata"]
        specs.setdefault(key.alg, set()).add((metadata["KeySpec"], metadata["KeyUsage"]))
        policy = json.loads(kms().get_key_policy(KeyId=key.kms_key_id, PolicyName="default")["Policy"])
        assert [s["Sid"] for s in policy["Statement"]] == [
            "AccountAdministersThroughIam", "TokenFunctionSigns", "RotationReadsAndRetires"]
    assert specs == {"ES256": {("ECC_NIST_P256", "SIGN_VERIFY")}, "RS256": {("RSA_2048", "SIGN_VERIFY")}}
    for alg in ("RS256", "ES256"):
        token = issue_id_token(issuer="https://issuer.example", client_id="c", access_token="at", alg=alg,
                               authentication=Authentication(user_id="usr_1", auth_time=1))
        header = jwt.get_unverified_header(token)
        (key,) = [k for k in jwk_set()["keys"] if k["kid"] == header["kid"]]
        assert (header["alg"], key["alg"]) == (alg, alg)
        claims = jwt.decode(token, jwt.PyJWK(key).key, algorithms=[alg], audience="c",
                            options={"verify_exp": False, "verify_iat": False})
        assert claims["sub"] == "usr_1"
