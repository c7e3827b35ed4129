"""Lambda handler: the operators' console, GET /console and /console/{proxy+} (docs/console.md), and the console's
client registration, ensured by the template's custom resource ConsoleClientBootstrap at each deploy.

Its own function, apart from the sign-in, token and charges paths: their cold starts and grants are untouched by
the console's pages, and its role reads and writes only what the console needs (docs/decisions.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from authgate import custom_resource
from authgate.failures import api_error
from authgate.http.app import App, Route

_PAGES = "authgate.console.routes:console"
PHYSICAL_ID = "authgate-console-client"

app = App("console", {
    ("/console", "GET"): Route(_PAGES, "page"),
    ("/console/{proxy+}", "GET"): Route(_PAGES, "page"),
    ("/console/{proxy+}", "POST"): Route(_PAGES, "page"),
}, translate=api_error)


def _ensure(properties: Mapping[str, Any]) -> None:
    from authgate.console.client import ensure

    ensure(str(properties["Issuer"]))


def _retire(properties: Mapping[str, Any]) -> None:
    from authgate.console.client import retire

    retire()


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    if custom_resource.is_request(event):
        return custom_resource.handled(event, PHYSICAL_ID, "console client",
                                       {"Create": _ensure, "Update": _ensure, "Delete": _retire})
    return app(event, context)
