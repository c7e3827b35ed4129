"""The recorder sees KMS as AWS authorizes it: no tags on a key younger than KMS's tag delay, and
the key's own policy with every call on it."""

from __future__ import annotations

import json

import boto3
from moto import mock_aws

from tests.deploy.iam.site import authgate_call_recorder as recorder


@mock_aws
def test_a_new_keys_tags_are_not_yet_authorization_context_and_its_policy_travels() -> None:
    kms = boto3.client("kms", region_name="us-east-1")
    policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "kms:*", "Resource": "*",
                                                      "Principal": {"AWS": "arn:aws:iam::123456789012:root"}}]}
    key = kms.create_key(KeySpec="RSA_2048", KeyUsage="SIGN_VERIFY", Policy=json.dumps(policy),
                         Tags=[{"TagKey": "authgate-stack", "TagValue": "s"}])["KeyMetadata"]
    fresh = recorder._kms_key("us-east-1", key["KeyId"])
    requests = recorder.iam_requests("kms", "us-east-1", "GetPublicKey", {"KeyId": key["KeyId"]}, None, fresh)
    assert requests == [{"action": "kms:GetPublicKey", "resource": key["Arn"], "resource_policy": policy, "context": {
        "kms:KeySpec": "RSA_2048", "kms:KeyUsage": "SIGN_VERIFY", "kms:KeyOrigin": "AWS_KMS"}}]

    from moto.kms.models import kms_backends

    kms_backends["123456789012"]["us-east-1"].keys[key["KeyId"]].creation_date -= recorder.KMS_TAG_DELAY + 1
    settled = recorder._kms_key("us-east-1", key["KeyId"])
    context = recorder.iam_requests("kms", "us-east-1", "Sign", {"KeyId": key["KeyId"]}, None, settled)[0]["context"]
    assert context["aws:ResourceTag/authgate-stack"] == "s"
