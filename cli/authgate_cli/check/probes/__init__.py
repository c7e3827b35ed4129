"""The probe suites: authgate's own (default) and one built from an OpenAPI document."""

from __future__ import annotations

from typing import Any

from authgate_cli.check.probes import (
    bearer,
    discovery,
    mutating,
    oauth,
    openapi,
    problem_types,
    routes,
)
from authgate_cli.check.probes.base import Options, Probe


def authgate_suite(options: Options, run_id: str) -> list[Probe]:
    """Every probe of an authgate deployment, read-only first, state-changing last, types at the end."""
    return [*discovery.PROBES, *oauth.PROBES, *bearer.probes(options.resource),
            *routes.probes(run_id, options.resource), *mutating.PROBES, problem_types.PROBE]


def openapi_suite(document: dict[str, Any], options: Options, run_id: str) -> list[Probe]:
    """Any API: the unknown-route probes, negative requests per operation, then problem types."""
    unknown = [p for p in routes.probes(run_id, options.resource, echo=False) if p.name.startswith("route.unknown")]
    return [*unknown, *openapi.probes(document, options.user_headers), problem_types.PROBE]
