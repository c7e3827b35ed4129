"""The seal of each object: HMAC-SHA-256 of its header (authgate.audit_trail.chain).

On a stage the key is a KMS HMAC key (HMAC_256): its material never leaves KMS, the audit
function may only GenerateMac with it (the key's own policy) and a verifier needs VerifyMac (an
operator's IAM grant; the console's role, by the key's policy too), so whoever can write to the
bucket still cannot seal an object. Locally the key is a file of the
trail's directory (`mac.key`, owner-only): the same format, with no such protection.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from pathlib import Path
from typing import Any

ALGORITHM = "HMAC_SHA_256"
LOCAL_PREFIX = "local:"


class KmsMac:
    """GenerateMac / VerifyMac with a KMS HMAC key (`key_id`: its ARN)."""

    def __init__(self, key_id: str, kms: Any = None) -> None:
        self.key_id = key_id
        self._kms = kms

    def _client(self) -> Any:
        if self._kms is None:
            from authgate import aws

            self._kms = aws.kms()
        return self._kms

    def sign(self, message: bytes) -> str:
        answer = self._client().generate_mac(KeyId=self.key_id, Message=message, MacAlgorithm=ALGORITHM)
        return base64.b64encode(answer["Mac"]).decode("ascii")

    def valid(self, message: bytes, mac: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            answer = self._client().verify_mac(KeyId=self.key_id, Message=message, MacAlgorithm=ALGORITHM,
                                               Mac=base64.b64decode(mac))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "KMSInvalidMacException":
                return False
            raise
        except ValueError:  # not base64
            return False
        return bool(answer.get("MacValid"))


class LocalMac:
    """HMAC-SHA-256 with the 32-byte key in `path` (made on first use); its id names the key's digest."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if not path.exists():
            # Written whole under another name, then linked: a reader never sees a half-written key,
            # and of two processes making it at once, one key wins.
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(os.urandom(32))
            try:
                os.link(tmp, path)
            except FileExistsError:
                pass
            finally:
                tmp.unlink()
        self._key = path.read_bytes()
        self.key_id = LOCAL_PREFIX + hashlib.sha256(self._key).hexdigest()[:16]

    def sign(self, message: bytes) -> str:
        return base64.b64encode(hmac.new(self._key, message, hashlib.sha256).digest()).decode("ascii")

    def valid(self, message: bytes, mac: str) -> bool:
        return hmac.compare_digest(self.sign(message), mac)
