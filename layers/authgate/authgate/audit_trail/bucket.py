"""A stage's audit trail: the chain's objects in the S3 bucket of template.yaml's AuditBucket.

Object Lock in compliance mode keeps every version for the stack's AuditRetentionDays (the
bucket's default retention), encrypted with the stage's audit key; its policy lets no role of
the stack delete one. A PutObject under Object Lock must carry a checksum: every write sends its
SHA-256 (x-amz-checksum-sha256).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from authgate.audit_trail.chain import PREFIX, Stored


class BucketStore:
    shared_head = True  # one writer (the audit function on the stream's one shard): the head is kept warm

    def __init__(self, bucket: str, s3: Any = None) -> None:
        self.bucket = bucket
        self._s3 = s3

    def _client(self) -> Any:
        if self._s3 is None:
            from authgate import aws

            self._s3 = aws.s3()
        return self._s3

    @contextlib.contextmanager
    def appending(self) -> Iterator[None]:
        yield

    def _pages(self, operation: str, **kwargs: Any) -> Iterator[dict[str, Any]]:
        yield from self._client().get_paginator(operation).paginate(Bucket=self.bucket, **kwargs)

    def dates(self) -> list[str]:
        found = []
        for page in self._pages("list_objects_v2", Prefix=PREFIX, Delimiter="/"):
            for common in page.get("CommonPrefixes") or []:
                part = common["Prefix"][len(PREFIX):].rstrip("/")
                if part.startswith("date="):
                    found.append(part.removeprefix("date="))
        return sorted(found)

    def names(self, date: str) -> list[str]:
        """The day's objects, oldest first (S3 lists them newest first: their numbers count down)."""
        keys = [item["Key"] for page in self._pages("list_objects_v2", Prefix=f"{PREFIX}date={date}/")
                for item in page.get("Contents") or []]
        return list(reversed(keys))

    def newest(self, date: str) -> str | None:
        names = self.latest(date, 1)
        return names[0] if names else None

    def latest(self, date: str, count: int) -> list[str]:
        """The day's `count` newest objects, oldest first (one request: they are listed first)."""
        page = self._client().list_objects_v2(Bucket=self.bucket, Prefix=f"{PREFIX}date={date}/", MaxKeys=count)
        return list(reversed([item["Key"] for item in page.get("Contents") or []]))

    def read(self, name: str) -> bytes:
        return bytes(self._client().get_object(Bucket=self.bucket, Key=name)["Body"].read())

    def stored(self, name: str) -> Stored:
        return Stored(name, self.read(name))

    def versions(self, date: str) -> dict[str, int]:
        """How many versions (and delete markers) each object of the day has: more than one is a rewrite."""
        counts: dict[str, int] = {}
        for page in self._pages("list_object_versions", Prefix=f"{PREFIX}date={date}/"):
            for item in [*(page.get("Versions") or []), *(page.get("DeleteMarkers") or [])]:
                counts[item["Key"]] = counts.get(item["Key"], 0) + 1
        return counts

    def write(self, name: str, body: bytes) -> None:
        self._client().put_object(Bucket=self.bucket, Key=name, Body=body, ChecksumAlgorithm="SHA256",
                                  ContentType="application/x-ndjson")
