"""Whether this machine can call AWS, and one line saying what to set when it cannot.

Used by every admin command given `--stack-name` (authgate_cli.admin.target) and by `make
deploy`'s preflight (scripts/deploy_check.py), so both answer a missing region, missing or
refused credentials, an expired SSO session or an unreachable endpoint with the same sentence.
The region is looked for where the AWS CLI looks: the explicit one, then AWS_REGION, then
AWS_DEFAULT_REGION, then the profile's (boto3 itself skips AWS_REGION). Nothing here calls AWS
except through the caller's own request; the credentials are resolved locally (the SDK's
provider chain, which may ask the instance metadata service).
"""

from __future__ import annotations

import os
import re
from typing import Any

# How each caller names the region option in "what to set" (an admin flag, a make variable).
ADMIN_REGION = "--region REGION"
MAKE_REGION = "REGION=... to make"

_EXPIRED = ("ExpiredToken", "ExpiredTokenException", "RequestExpired", "TokenRefreshRequired")
_REFUSED = ("InvalidClientTokenId", "UnrecognizedClientException", "InvalidAccessKeyId", "SignatureDoesNotMatch",
            "InvalidSignatureException", "IncompleteSignature", "AuthFailure", "InvalidToken")
_DENIED = ("AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "UnauthorizedAccess")
_RENEW = "renew them (aws sso login, or fresh temporary credentials) and try again"
NO_CREDENTIALS = ("no AWS credentials: configure a profile (aws configure) or set AWS_PROFILE "
                  "(or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)")


def no_region(region_hint: str = ADMIN_REGION) -> str:
    return f"no AWS region: set AWS_REGION (or a profile's region), or pass {region_hint}"


class AwsUnavailable(Exception):
    """AWS cannot be called from here; the message is one line saying what to set or fix."""


def session(region: str | None = None) -> Any:
    """A boto3 session in the region the AWS CLI would use; AwsUnavailable for an unknown profile."""
    import boto3
    from botocore.exceptions import BotoCoreError

    try:
        return boto3.session.Session(region_name=region or os.environ.get("AWS_REGION") or None)
    except BotoCoreError as exc:
        raise AwsUnavailable(explain(exc)) from None


def require(aws: Any, region_hint: str = ADMIN_REGION) -> str:
    """The session's region once it has a region and credentials that are not known to be expired."""
    from botocore.exceptions import BotoCoreError

    region = str(aws.region_name or "")
    if not region:
        raise AwsUnavailable(no_region(region_hint))
    try:
        credentials = aws.get_credentials()
        if credentials is None:
            raise AwsUnavailable(NO_CREDENTIALS)
        # A refreshable set (SSO, credential_process, an assumed role) is fetched or renewed here.
        credentials.get_frozen_credentials()
    except BotoCoreError as exc:
        raise AwsUnavailable(explain(exc)) from None
    except RuntimeError as exc:
        # botocore's own words when a renewal still yields expired credentials.
        if "still expired" not in str(exc):
            raise
        raise AwsUnavailable(f"the AWS credentials have expired: {_RENEW}") from None
    return region


def explain(exc: Exception) -> str:
    """One line for a botocore failure: what went wrong and what to set or fix."""
    from botocore import exceptions as boto

    if isinstance(exc, boto.ClientError):
        return _client_error(exc)
    if isinstance(exc, boto.NoRegionError):
        return no_region()
    if isinstance(exc, boto.NoCredentialsError):
        return NO_CREDENTIALS
    if isinstance(exc, boto.ProfileNotFound):
        profile = exc.kwargs.get("profile", "")
        return (f"the AWS profile {profile!r} is not configured: set AWS_PROFILE to one that is (aws configure "
                f"list-profiles), or create it (aws configure --profile {profile})")
    if isinstance(exc, boto.PartialCredentialsError):
        return (f"incomplete AWS credentials ({_one_line(str(exc))}): set both AWS_ACCESS_KEY_ID and "
                "AWS_SECRET_ACCESS_KEY, or use a profile (AWS_PROFILE)")
    if isinstance(exc, boto.SSOError):
        profile = os.environ.get("AWS_PROFILE")
        login = f"aws sso login --profile {profile}" if profile else "aws sso login"
        return f"the AWS SSO session has expired or was never started: run `{login}`"
    if isinstance(exc, boto.EndpointConnectionError | boto.ConnectTimeoutError | boto.ConnectionClosedError):
        url = exc.kwargs.get("endpoint_url", "")
        override = " and AWS_ENDPOINT_URL" if any(k.startswith("AWS_ENDPOINT_URL") for k in os.environ) else ""
        return f"cannot reach AWS at {url}: check the network, the region{override}"
    return f"AWS: {_one_line(str(exc))}"


def _client_error(exc: Any) -> str:
    error = exc.response.get("Error", {})
    code, message = str(error.get("Code", "")), _one_line(str(error.get("Message", "")))
    if code in _EXPIRED:
        return f"the AWS credentials have expired ({code}): {_RENEW}"
    if code in _REFUSED:
        return (f"AWS refused the credentials ({code}: {message}): configure working ones (aws configure) or "
                "set AWS_PROFILE")
    if code in _DENIED:
        return (f"AWS denied {exc.operation_name} to these credentials ({code}): use an identity allowed to "
                "administer the stack (docs/deploy.md, What you need)")
    return f"AWS answered {exc.operation_name} with {code}: {message}"


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()[:300]
