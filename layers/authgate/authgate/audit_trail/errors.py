"""What reading the trail back can fail with (authgate.audit_trail.reader): AWS refused or failed a call.

Raised for any S3 or KMS error of a read (access denied, a bucket or key gone or disabled, throttling, a timeout),
with AWS's error code: the console answers it with its error page (authgate.failures), `authgate events` with the
line every admin command prints for an AWS error.
"""

from __future__ import annotations


class TrailUnreadable(RuntimeError):
    """The trail could not be read: `operation` is the AWS call (GetObject, VerifyMac, ...), `code` AWS's error code
    (or the SDK's exception name for a timeout or an unreachable endpoint), `error` the SDK's exception."""

    def __init__(self, error: Exception) -> None:
        response = getattr(error, "response", None)
        code = response.get("Error", {}).get("Code", "") if isinstance(response, dict) else ""
        self.error = error
        self.operation = str(getattr(error, "operation_name", "") or "")
        self.code = str(code or type(error).__name__)
        super().__init__(f"the audit trail could not be read: {self.operation or 'AWS'} {self.code}")
