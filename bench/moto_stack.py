"""An in-process moto AWS with the template's tables, for benchmarks (the tests' `aws` fixture, as a context manager)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def moto_stack(**env: str) -> Iterator[None]:
    os.environ.update({"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1",
                       "AWS_REGION": "us-east-1", "AUTHGATE_ISSUER": "http://127.0.0.1:3000",
                       "AUTHGATE_STAGE": "local", "POWERTOOLS_LOG_LEVEL": "ERROR", **env})
    os.environ.pop("AUTHGATE_AWS_ENDPOINT_URL", None)
    import boto3
    from moto import mock_aws

    from authgate import caches
    from authgate_cli.local import template
    from authgate_cli.local.atomic import make_dynamodb_atomic

    make_dynamodb_atomic()
    os.environ.update(template.table_environment())
    with mock_aws():
        caches.reset()
        client = boto3.client("dynamodb", region_name="us-east-1")
        for definition in template.table_definitions().values():
            client.create_table(**definition["create"])
        yield
    caches.reset()
