"""Reading an OpenAPI 3 document for `--openapi URL|FILE`: JSON or YAML, local $refs resolved.

Only references inside the document (`#/components/...`) are followed, and only where the
checker looks (parameters, request bodies, responses, security schemes): it needs operations,
their security, body media types and documented statuses, never a schema.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from authgate_cli.check.probes.base import CannotRun
from authgate_cli.check.transport import Client, TransportError

MAX_DEPTH = 64


def load(source: str, client: Client) -> dict[str, Any]:
    """The document at `source` (http(s) URL or file path), or CannotRun with one line why."""
    if source.startswith(("http://", "https://")):
        try:
            exchange = client.send("GET", source, [("Accept", "application/json, application/yaml;q=0.9")])
        except TransportError as exc:
            raise CannotRun(f"cannot fetch the OpenAPI document {source}: {exc}") from None
        if exchange.response.status != 200:
            raise CannotRun(f"the OpenAPI document {source} answered {exchange.response.status}")
        text = exchange.response.body.decode("utf-8", "replace")
    else:
        try:
            text = Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CannotRun(f"cannot read the OpenAPI document {source}: {getattr(exc, 'strerror', None) or exc}") \
                from None
    document = _parse(text, source)
    version = str(document.get("openapi", document.get("swagger", "")))
    if not version.startswith("3."):
        raise CannotRun(f"{source} is not an OpenAPI 3 document (openapi: {version or 'missing'})")
    if not isinstance(document.get("paths"), dict):
        raise CannotRun(f"{source} has no paths object")
    return document


def _parse(text: str, source: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError:
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" (line {mark.line + 1})" if mark is not None else ""
            raise CannotRun(f"{source} is neither JSON nor YAML{where}") from None
    if not isinstance(data, dict):
        raise CannotRun(f"{source} is not an OpenAPI document (not an object)")
    return data


def deref(document: dict[str, Any], value: Any) -> Any:
    """`value`, or what its local $ref points at (RFC 6901 pointer), followed to the end."""
    for _ in range(MAX_DEPTH):
        if not (isinstance(value, dict) and isinstance(value.get("$ref"), str)):
            return value
        value = _pointer(document, value["$ref"])
    raise CannotRun("the OpenAPI document's $refs form a cycle")


def _pointer(document: dict[str, Any], ref: str) -> Any:
    if not ref.startswith("#"):
        raise CannotRun(f"only local $refs are supported, not {ref!r}")
    node: Any = document
    for token in [t for t in ref[1:].split("/") if t]:
        token = unquote(token).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise CannotRun(f"$ref {ref!r} points at nothing")
    return node
