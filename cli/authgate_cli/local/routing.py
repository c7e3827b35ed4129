"""Matches a request to a template route the way API Gateway (REST) does.

First the resource: the most specific resource whose path matches, comparing segment by
segment (a literal beats `{param}`, which beats `{proxy+}`). Then the method on that resource:
an explicit method beats ANY. A matched resource without the method is not a fall-through to a
less specific resource: API Gateway answers MISSING_AUTHENTICATION_TOKEN, and so do we.

A REST API knows seven methods, and ANY stands for those seven only (API Gateway developer
guide, x-amazon-apigateway-any-method; "HTTP methods" of AWS::ApiGateway::Method). Any other
method (BREW, PROPFIND) can match no method of any resource.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import unquote

from authgate_cli.local.template import ApiRoute

# The methods a REST API method (and ANY) can be: DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT.
METHODS = frozenset({"DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"})


@dataclass(frozen=True)
class Match:
    route: ApiRoute
    path_params: dict[str, str]


def _rank(resource: str) -> tuple[int, ...]:
    """Per-segment precedence: literal 2, {param} 1, {proxy+} 0."""
    if resource == "/":
        return ()
    out = []
    for segment in resource.strip("/").split("/"):
        if segment.endswith("+}"):
            out.append(0)
        elif segment.startswith("{"):
            out.append(1)
        else:
            out.append(2)
    return tuple(out)


def _pattern(resource: str) -> re.Pattern[str]:
    if resource == "/":
        return re.compile(r"^/$")
    parts = []
    for segment in resource.strip("/").split("/"):
        m = re.fullmatch(r"\{(\w+)(\+?)\}", segment)
        if m and m.group(2):
            parts.append(f"(?P<{m.group(1)}>.+?)")
        elif m:
            parts.append(f"(?P<{m.group(1)}>[^/]+)")
        else:
            parts.append(re.escape(segment))
    return re.compile("^/" + "/".join(parts) + "/?$")


class Router:
    """Routes of one API, grouped by resource."""

    def __init__(self, routes: Iterable[ApiRoute]) -> None:
        self._by_resource: dict[str, dict[str, ApiRoute]] = {}
        for route in routes:
            self._by_resource.setdefault(route.path, {})[route.method] = route
        # Most specific first; a longer path of equal precedence prefix is more specific.
        self._order = sorted(self._by_resource, key=_rank, reverse=True)
        self._patterns = {resource: _pattern(resource) for resource in self._order}

    def resource_for(self, path: str) -> tuple[str, dict[str, str]] | None:
        for resource in self._order:
            m = self._patterns[resource].match(path)
            if m:
                return resource, {k: unquote(v) for k, v in m.groupdict().items()}
        return None

    def match(self, method: str, path: str) -> Match | None:
        """The route for `method path`, or None (API Gateway: Missing Authentication Token)."""
        found = self.resource_for(path)
        if found is None:
            return None
        resource, params = found
        if method not in METHODS:  # methods are case-sensitive (RFC 9110 9.1): "get" is not GET
            return None
        methods = self._by_resource[resource]
        route = methods.get(method) or methods.get("ANY")
        return Match(route, params) if route else None
