"""console.routes: the table of the console's pages, each a handler that exists and judges an action operators.roles
knows; an unknown page is 404, another method 405 with Allow."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from authgate.console import routes
from authgate.console.routes import PAGES, console
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.operators.roles import ACTIONS
from tests.functional.console_support import console_event
from tests.unit.console.page_support import get, post

CONSOLE = Path(routes.__file__).parent
# The calls of the console that judge an action (console.pages, console.clients, operators.roles).
JUDGES = {"allow", "allow_somewhere", "chosen_tenant", "judged", "may", "reach"}


@pytest.mark.parametrize(("page", "method"), sorted(PAGES))
def test_each_page_is_a_function_of_its_module_that_takes_what_the_router_gives(page: str, method: str) -> None:
    found = PAGES[(page, method)]
    module, _, name = found.handler.partition(":")
    handler = getattr(importlib.import_module(module), name)
    assert list(inspect.signature(handler).parameters) == (["request", "signed"] if found.signed else ["request"])


def test_only_the_sign_in_and_sign_out_pages_need_no_operator() -> None:
    assert sorted(page for (page, _), found in PAGES.items() if not found.signed) == [
        "callback", "sign-out", "signed-out"]


def _judged_actions() -> dict[str, set[str]]:
    """Every action a console module judges, by module: the literal (or module constant) given to a judging call."""
    found: dict[str, set[str]] = {}
    for path in sorted(CONSOLE.glob("*.py")):
        tree = ast.parse(path.read_text())
        constants = {target.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
                     and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                     for target in node.targets if isinstance(target, ast.Name)}
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
            name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
            if name not in JUDGES:
                continue
            for arg in call.args:
                value = arg.value if isinstance(arg, ast.Constant) else constants.get(getattr(arg, "id", ""))
                if isinstance(value, str) and "." in value:
                    found.setdefault(path.stem, set()).add(value)
    return found


def test_every_action_a_page_judges_is_one_the_roles_know() -> None:
    judged = _judged_actions()
    assert {"home", "people", "person_form", "client_forms", "client_act", "resource_forms", "tenant_create",
            "tenant_update"} <= set(judged)  # the reader finds the judging calls of the modules it must
    unknown = {module: sorted(actions - set(ACTIONS)) for module, actions in judged.items() if actions - set(ACTIONS)}
    assert unknown == {}


def test_every_module_a_page_names_judges_an_action_unless_it_needs_no_operator() -> None:
    from authgate.console.act import OWNED, rule
    from authgate.people.actions import ACTIONS as PEOPLE_ACTIONS

    judged = _judged_actions()
    # console.act judges the rule of the action the form names: each one the roles know.
    judged["act"] = {rule(action) for action in (*PEOPLE_ACTIONS, *OWNED)}
    assert judged["act"] <= set(ACTIONS)
    signed_modules = {found.handler.partition(":")[0].rpartition(".")[2] for found in PAGES.values() if found.signed}
    assert sorted(m for m in signed_modules if m not in judged) == []


def test_an_unknown_page_is_not_found() -> None:
    with pytest.raises(ApiError) as refused:
        console(get("nothing-<here>"))
    assert (refused.value.code, refused.value.detail) == ("not_found", "The console has no page /console/nothing-<here>.")


def test_another_method_is_not_allowed_and_says_which_are() -> None:
    with pytest.raises(ApiError) as refused:
        console(post("people", {}))
    assert (refused.value.code, refused.value.detail, refused.value.headers) == (
        "method_not_allowed", "POST is not allowed on /console/people.", {"Allow": "GET"})
    with pytest.raises(ApiError) as both:
        console(Request.from_event(console_event("PUT", "/console/act")))
    assert (both.value.detail, both.value.headers) == ("PUT is not allowed on /console/act.", {"Allow": "GET, POST"})
    with pytest.raises(ApiError) as form:
        console(get("sign-out"))
    assert (form.value.detail, form.value.headers) == ("GET is not allowed on /console/sign-out.", {"Allow": "POST"})


def test_a_page_without_a_session_starts_the_sign_in_that_comes_back_to_it(aws: None) -> None:
    from urllib.parse import parse_qs, urlsplit

    from authgate.console.sign_in import _pending

    answer = console(get("people", [("tenant", "demo"), ("q", "a&b")]))
    assert answer.status == 302
    location = urlsplit(answer.headers["Location"])
    assert (location.scheme, location.netloc, location.path) == ("http", "127.0.0.1:3000", "/oauth/authorize")
    assert parse_qs(location.query)["client_id"] == ["authgate-console"]
    (cookie,) = answer.multi_headers["Set-Cookie"]
    assert cookie.startswith("authgate_console_sign_in=")
    # The sign-in comes back to the page asked for, its query as it was (the pending sign-in sealed in the cookie).
    back = Request.from_event(console_event("GET", "/console/callback", cookie=cookie.split(";", 1)[0]))
    assert _pending(back)["back"] == "/console/people?tenant=demo&q=a%26b"  # type: ignore[index]
