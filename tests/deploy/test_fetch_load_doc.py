"""docs/agents.md's account of what bounds metadata-document fetches is true of the template and the code.

It names every method whose handler can start a fetch with that method's stage throttle (the
template's MethodSettings, resolved with the default parameters), and the fetch budgets with
their defaults (authgate.settings). A route that starts fetching, a throttle that moves or a
budget that changes without the page fails here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.transform import World, resolve, transformed

REPO = Path(__file__).resolve().parents[2]
LAYER = REPO / "layers" / "authgate" / "authgate"
# The modules that can start a fetch, and the methods whose handlers they are: the endpoints that
# ask the client lookup (directly or through client authentication) to fetch documents.
FETCHING = {"oauth/authorization/endpoint.py": [("GET", "/oauth/authorize"), ("POST", "/oauth/authorize")],
            "oauth/token/endpoint.py": [("POST", "/oauth/token")],
            "oauth/authorization/par.py": [("POST", "/oauth/par")],
            "oauth/device/authorization.py": [("POST", "/oauth/device_authorization")]}


def table(name: str) -> list[list[str]]:
    """The rows (cells stripped) of the table between <!-- name:start --> and <!-- name:end -->."""
    text = (REPO / "docs" / "agents.md").read_text("utf-8")
    block = text.split(f"<!-- {name}:start -->")[1].split(f"<!-- {name}:end -->")[0]
    return [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in block.strip().splitlines()[2:]]


@pytest.fixture(scope="module")
def throttles() -> dict[tuple[str, str], tuple[float, float, list[str]]]:
    """(method, path) -> (rate, burst, the parameters they name) of each MethodSettings entry, defaults resolved."""
    doc = transformed()
    world = World(stack="s")
    found: dict[tuple[str, str], tuple[float, float, list[str]]] = {}
    for setting in doc["Resources"]["AuthgateApiStage"]["Properties"]["MethodSettings"]:
        key = (setting["HttpMethod"], setting["ResourcePath"][1:].replace("~1", "/"))  # "/~1oauth~1par"
        named = re.findall(r"'Ref': '(\w+)'", str([setting["ThrottlingRateLimit"], setting["ThrottlingBurstLimit"]]))
        found[key] = (float(resolve(setting["ThrottlingRateLimit"], doc, world)),
                      float(resolve(setting["ThrottlingBurstLimit"], doc, world)), named)
    return found


def test_the_modules_that_can_fetch_are_the_ones_the_page_accounts_for() -> None:
    starts = {str(path.relative_to(LAYER)) for path in LAYER.rglob("*.py")
              if "MetadataClients(" in path.read_text("utf-8") or "fetch_documents=True" in path.read_text("utf-8")}
    # The client lookup builds the resolver only for the flows that pass fetch_documents=True.
    assert starts - {"oauth/clients/lookup.py"} == set(FETCHING)


def test_every_method_that_can_fetch_is_documented_with_its_stage_throttle(
        throttles: dict[tuple[str, str], tuple[float, float, list[str]]]) -> None:
    documented = {}
    for method_cell, throttle_cell, parameters_cell in table("fetch-routes"):
        method, path = method_cell.strip("`").split(" ")
        match = re.fullmatch(r"(\d+) req/s, burst (\d+)", throttle_cell)
        assert match, throttle_cell
        documented[(method, path)] = (float(match.group(1)), float(match.group(2)),
                                      re.findall(r"`([A-Z]\w+)`", parameters_cell))
    assert set(documented) == {route for routes in FETCHING.values() for route in routes}
    for route, (rate, burst, parameters) in documented.items():
        actual_rate, actual_burst, named = throttles[route]  # a method without its own entry fails here
        assert (rate, burst) == (actual_rate, actual_burst), route
        assert set(named) <= set(parameters), (route, named)


def test_the_fetch_budgets_are_documented_with_their_defaults() -> None:
    from authgate.settings import from_env

    defaults: dict[str, Any] = from_env({})._asdict()
    settings = {"AUTHGATE_CLIENT_METADATA_SOURCE_LIMIT": "client_metadata_source_limit",
                "AUTHGATE_CLIENT_METADATA_FETCH_LIMIT": "client_metadata_fetch_limit",
                "AUTHGATE_CLIENT_METADATA_DEPLOYMENT_LIMIT": "client_metadata_deployment_limit"}
    rows = table("fetch-budgets")
    assert len(rows) == 5
    for _what, default, setting in rows:
        assert int(default) == defaults[settings[setting.strip("`")]], setting
    source = (LAYER / "settings" / "self_registration.py").read_text("utf-8")
    assert all(f'"{name}"' in source for name in settings)  # the environment variables the page names exist
