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


_SERVICES = ("dynamodb", "secretsmanager", "kms", "sesv2", "sqs", "s3", "events", "lambda")


def _client(service: str, *, read_timeout: int = 5, retries: int = 2) -> Any:
    import botocore
    from botocore.config import Config

    settings = get_settings()
    # parameter_validation off: our requests are built by code, not users, and DynamoDB validates
    # them anyway. A fixed User-Agent: botocore rebuilds its default twice per call; this one still
    # names the SDK and its version.
    # account_id_endpoint_mode disabled: authgate's tables are in its own account and named by
    # name, so DynamoDB's account-based endpoints buy nothing, and the endpoint then depends on
    # the client alone (_remember_endpoints).
    config = Config(retries={"total_max_attempts": retries + 1, "mode": "standard"},
                    connect_timeout=2, read_timeout=read_timeout, tcp_keepalive=True, parameter_validation=False,
                    user_agent=f"authgate Botocore/{botocore.__version__}", account_id_endpoint_mode="disabled")
    kwargs: dict[str, Any] = {"region_name": settings.aws_region, "config": config}
    if settings.aws_endpoint_url:
        kwargs["endpoint_url"] = settings.aws_endpoint_url
    client = _session().create_client(service, **kwargs)
    if service == "dynamodb":
        _remember_endpoints(client)
    if len(_FROZEN) < len(_SERVICES):
        # botocore, its models and the client live as long as the process: move them (and every
        # module imported so far) out of the collector's sight, so every later full collection
        # traverses only what requests create. Bounded: a process that rebuilds clients (tests,
        # the emulator) must not freeze its garbage for good.
        gc.freeze()
        _FROZEN.append(service)
    return client


_FROZEN: list[str] = []

# The endpoint ruleset's parameters a DynamoDB call's own arguments supply (its table names):
# read only for account-based endpoints, which the client's config turns off.
_ACCOUNT_ENDPOINT_PARAMETERS = frozenset({"ResourceArn", "ResourceArnList"})


def _remember_endpoints(client: Any) -> None:
    """Resolve each DynamoDB operation's endpoint once per client, not on every call.

    botocore evaluates the endpoint ruleset's parameters on every call (docs/decisions.md,
    measured shortcuts); with account-based endpoints off they come from the client alone
    (region, FIPS, dual stack, endpoint URL), so the answer per operation never changes. An
    operation whose ruleset parameters come from its arguments (beyond its table names) is
    resolved on every call, as botocore does.
    """
    # botocore comes with the Lambda runtime and these are its private names: when they are not
    # there as expected, the client resolves every call as botocore does.
    resolver: Any = getattr(client, "_ruleset_resolver", None)
    resolve = getattr(resolver, "construct_endpoint", None)
    if resolve is None or not isinstance(getattr(resolver, "_param_definitions", None), dict) or (
            getattr(client.meta.config, "account_id_endpoint_mode", None) != "disabled"):
        return
    resolved: dict[str, Any] = {}

    def construct_endpoint(operation_model: Any, *args: Any, **kwargs: Any) -> Any:
        endpoint = resolved.get(operation_model.name)
        if endpoint is None:
            endpoint = resolve(operation_model, *args, **kwargs)
            if _from_client_alone(resolver, operation_model):
                resolved[operation_model.name] = endpoint
        return endpoint

    resolver.construct_endpoint = construct_endpoint


def _from_client_alone(resolver: Any, operation_model: Any) -> bool:
    """True when no ruleset parameter of this operation comes from the call (but its table names)."""
    try:
        from_call = ({p.name for p in operation_model.context_parameters}
                     | set(operation_model.operation_context_parameters))
    except (AttributeError, TypeError):
        return False
    return not (from_call & set(resolver._param_definitions)) - _ACCOUNT_ENDPOINT_PARAMETERS


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


@cached
def s3() -> Any:
    return _client("s3")


@cached
def events() -> Any:
    return _client("events")


@cached
def lambda_() -> Any:
    """Lambda, for the console's synchronous Invoke of the rotation function (authgate.tokens.rotation_request):
    one attempt (a retried Invoke would run a step nobody asked for), answered within the console's own 10 s."""
    return _client("lambda", read_timeout=8, retries=0)
