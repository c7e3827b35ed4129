"""What the limiter does when its own table is throttled or down: admit, log once, count it.

docs/limits.md explains the choice: the API limiter is a fallback behind API Gateway's usage
plans and stage throttling, so failing closed would turn a limits-table hiccup into a payments
outage; failing open leaves the gateway's limits in force.
"""

from __future__ import annotations

from authgate.logs import get_logger


def record(limiter: str, internal: str) -> None:
    """A log line and a CloudWatch metric (EMF) saying the limiter failed open."""
    get_logger().warning("rate limiter unavailable; request admitted (fail open)",
                         extra={"limiter": limiter, "internal": internal})
    # Only this rare path needs Powertools' metrics (docs/decisions.md, measured shortcuts).
    from aws_lambda_powertools.metrics import MetricUnit, single_metric
    from aws_lambda_powertools.metrics.exceptions import SchemaValidationError

    try:
        # The namespace comes from POWERTOOLS_METRICS_NAMESPACE (template Globals).
        with single_metric(name="RateLimiterUnavailable", unit=MetricUnit.Count, value=1) as metric:
            metric.add_dimension(name="limiter", value=limiter)
    except SchemaValidationError:  # no namespace configured (a bare local run): the log line stands
        pass
