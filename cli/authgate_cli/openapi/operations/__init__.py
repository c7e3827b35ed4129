"""What template.yaml cannot say about each route: parameters, bodies, success responses and the
catalogue codes it can fail with (keyed by the template's (path, METHOD); build.py checks both
lists are the same), one module per area of the API. Schemas follow the renderers in
authgate.http.shapes and the RFCs named."""

from __future__ import annotations

from typing import Any

from authgate_cli.openapi.operations import (
    oauth_endpoints,
    pages,
    protected_resources,
    public_documents,
    shared_signals,
)
from authgate_cli.openapi.operations.components import SCHEMAS


def _joined(*areas: dict[tuple[str, str], dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """The areas' operations in one table; a route described by two areas is a mistake."""
    table: dict[tuple[str, str], dict[str, Any]] = {}
    for area in areas:
        twice = table.keys() & area.keys()
        if twice:
            raise KeyError(f"operations described in two areas: {sorted(twice)}")
        table.update(area)
    return table


OPERATIONS = _joined(pages.OPERATIONS, oauth_endpoints.OPERATIONS, protected_resources.OPERATIONS,
                     public_documents.OPERATIONS, shared_signals.OPERATIONS)

__all__ = ["OPERATIONS", "SCHEMAS"]
