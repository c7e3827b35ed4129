"""Every sample event in events/ runs on its function and gets the status its `_expect` documents.

Files are named <function>-<case>.json. Placeholders ({{access_token client=... scope=...}})
are expanded as `authgate invoke` expands them. AWS is in-process moto with the template's
tables, signing keys and the demo seed, exactly as `authgate invoke` sets it up.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.contract import check_proxy_result, is_browser_route

EVENTS = sorted((Path(__file__).resolve().parents[2] / "events").glob("*.json"))


@pytest.fixture(scope="module")
def local_stack() -> Iterator[None]:
    from authgate_cli.local.invoke import local_aws

    with local_aws():
        yield


def function_of(path: Path) -> str:
    return path.stem.split("-", 1)[0]


def test_there_is_an_event_for_every_function() -> None:
    from authgate_cli.local.functions import names

    assert {function_of(p) for p in EVENTS} == set(names())


@pytest.mark.parametrize("path", EVENTS, ids=[p.stem for p in EVENTS])
def test_event_gets_its_documented_status(path: Path, local_stack: None) -> None:
    from authgate_cli.local.invoke import run

    event: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert "_expect" in event, f"{path.name} must document its expected outcome in _expect"
    expect = event["_expect"]
    result = run(function_of(path), event)
    if "status" not in expect:  # not an API Gateway event (e.g. the rotation schedule): it must just run
        assert isinstance(result, dict)
        return
    assert result["statusCode"] == expect["status"], result
    check_proxy_result(result, api=not is_browser_route(event.get("path") or ""))


def test_event_files_are_proxy_events_named_after_their_resource() -> None:
    """A trimmed event still has what API Gateway always sends, and a resource its function serves."""
    from authgate_cli.local.template import api_routes, function_names

    routes = {(r.path, r.function) for r in api_routes()}
    for path in EVENTS:
        event = json.loads(path.read_text(encoding="utf-8"))
        if "httpMethod" not in event:
            continue
        assert {"resource", "path", "httpMethod", "headers", "requestContext", "body"} <= set(event), path.name
        assert (event["resource"], function_names()[function_of(path)]) in routes, path.name

