"""AWS clients, built on first use and cached for warm invocations (never at import; `caches.reset()` forgets them).

`AUTHGATE_AWS_ENDPOINT_URL` points every client at a local endpoint (the emulator's embedded
moto server, or an external DynamoDB-compatible server). The cold-start shortcuts here (botocore
without boto3, a data loader that knows our services, one gc.freeze, a lean client config) are
measured in docs/decisions.md ("Measured shortcuts") and guarded by tests/unit/test_aws.py.
"""

from __future__ import annotations

import gc
from typing import Any

from authgate.caches import cached
from authgate.settings import get_settings


@cached
def _session() -> Any:
    """One botocore session for every client (botocore directly: boto3.client() is a thin wrapper over it)."""
    # Deferred: a request that never calls AWS (a problem page, the stylesheet, the OpenAPI
    # document) does not pay for botocore (docs/decisions.md, measured shortcuts).
    import botocore.loaders
    import botocore.session

    class _KnownServicesLoader(botocore.loaders.Loader):  # type: ignore[misc]  # botocore is untyped
        # botocore answers "which services exist?" by listing every bundled model directory; we
        # only ever build these.
        def list_available_services(self, type_name: str) -> list[str]:
            return list(_SERVICES)

    session = botocore.session.get_session()
    session.register_component("data_loader", _KnownServicesLoader())
    return session


_SERVICES = ("dynamodb", "secretsmanager", "kms", "sesv2", "sqs")


def _client(service: str) -> Any:
    import botocore
    from botocore.config import Config

    settings = get_settings()
    # parameter_validation off: our requests are built by code, not users, and DynamoDB validates
    # them anyway. A fixed User-Agent: botocore rebuilds its default twice per call; this one still
    # names the SDK and its version.
    config = Config(retries={"max_attempts": 2, "mode": "standard"},
                    connect_timeout=2, read_timeout=5, tcp_keepalive=True, parameter_validation=False,
                    user_agent=f"authgate Botocore/{botocore.__version__}")
    kwargs: dict[str, Any] = {"region_name": settings.aws_region, "config": config}
    if settings.aws_endpoint_url:
        kwargs["endpoint_url"] = settings.aws_endpoint_url
    client = _session().create_client(service, **kwargs)
    if len(_FROZEN) < len(_SERVICES):
        # botocore, its models and the client live as long as the process: move them (and every
        # module imported so far) out of the collector's sight, so every later full collection
        # traverses only what requests create. Bounded: a process that rebuilds clients (tests,
        # the emulator) must not freeze its garbage for good.
        gc.freeze()
        _FROZEN.append(service)
    return client


_FROZEN: list[str] = []


@cached
def dynamodb() -> Any:
    return _client("dynamodb")


@cached
def secretsmanager() -> Any:
    return _client("secretsmanager")


@cached
def kms() -> Any:
    return _client("kms")


@cached
def sesv2() -> Any:
    return _client("sesv2")


@cached
def sqs() -> Any:
    return _client("sqs")
