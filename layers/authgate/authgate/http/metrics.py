"""Metrics as CloudWatch Embedded Metric Format (Powertools Metrics): one line per failure, one per counted event.

Each error response adds one EMF document to the function's log (no API call, nothing on the
success path): `ErrorResponses` by `ErrorCode`, plus the counts the alarms in template.yaml
watch: `InvalidToken` (RFC 6750 3.1; a spike means a key or clock problem), `RateLimited`
(429s), `StorageUnavailable` (DynamoDB throttled or down), `ServerErrors` (5xx) and
`RegistrationPoolFull` (the deployment's unassigned dynamic registrations at their cap). Every
metric is published twice: per service, and per service and error code. Events that are not
errors are counted by `record_count` (`ClientRegistrations`, one per dynamic registration).
POWERTOOLS_METRICS_DISABLED=true turns the lines off (Powertools' own switch).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from authgate.caches import cached

if TYPE_CHECKING:
    from aws_lambda_powertools import Metrics

    from authgate.http.response import Response

NAMESPACE = "authgate"
SERVICE = "authgate"
# Powertools' Metrics keeps one set of metrics per process: the local stack runs handlers on
# threads, and one request's clear must not land between another's add and flush.
_FLUSH = threading.Lock()


@cached
def _metrics() -> Metrics:
    # A function loads Powertools' metrics at its first error or counted event, never on a successful
    # cold start (docs/decisions.md, measured shortcuts).
    from aws_lambda_powertools import Metrics

    # Fixed here (the template's alarms name it) rather than read from the environment, so a
    # local run without POWERTOOLS_METRICS_NAMESPACE still emits valid EMF.
    return Metrics(namespace=NAMESPACE, service=SERVICE)


def counted_metrics(status: int, error_code: str) -> list[str]:
    """The metric names one error response increments."""
    names = ["ErrorResponses"]
    if error_code == "invalid_token":
        names.append("InvalidToken")
    if status == 429:
        names.append("RateLimited")
    if error_code in ("service_unavailable", "temporarily_unavailable"):
        names.append("StorageUnavailable")
    if status >= 500:
        names.append("ServerErrors")
    if error_code == "registration_pool_full":
        names.append("RegistrationPoolFull")
    return names


def record_count(name: str, value: int = 1) -> None:
    """`value` occurrences of `name` (ClientRegistrations: a dynamic client registration), one EMF line."""
    from aws_lambda_powertools.metrics import MetricUnit, single_metric  # as in _metrics

    with single_metric(name=name, unit=MetricUnit.Count, value=value, namespace=NAMESPACE) as metric:
        metric.add_dimension(name="service", value=SERVICE)


def record_response(function: str, response: Response) -> None:
    """Count an error response (no-op for successes); flushed at once, one EMF line."""
    if not response.error_code:
        return
    metrics = _metrics()
    with _FLUSH:
        _flush(metrics, function, response.status, response.error_code)


def _flush(metrics: Metrics, function: str, status: int, error_code: str) -> None:
    from aws_lambda_powertools.metrics import MetricUnit  # as in _metrics

    try:
        for name in counted_metrics(status, error_code):
            metrics.add_metric(name=name, unit=MetricUnit.Count, value=1)
        metrics.add_dimension(name="ErrorCode", value=error_code)
        metrics.add_dimensions(service=SERVICE)
        metrics.add_metadata(key="function", value=function)
        metrics.flush_metrics()
    finally:
        # Disabled metrics are not flushed, and so not cleared: never carry them into the next
        # invocation of a warm container.
        metrics.clear_metrics()
