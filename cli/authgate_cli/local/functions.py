"""Loads a function's handler (functions/<name>/app.py) in-process, as Lambda would."""

from __future__ import annotations

import functools
import importlib.util
import sys
from collections.abc import Callable
from contextvars import ContextVar
from types import ModuleType
from typing import Any

from authgate_cli.local import template

_MODULES: dict[str, ModuleType] = {}
# The logical id of the function whose handler runs in this thread, as a Lambda role would be
# chosen: the IAM check of the test suite (tests/deploy/iam) attributes AWS calls with it.
_RUNNING: ContextVar[str | None] = ContextVar("authgate_running_function", default=None)


def running_function() -> str | None:
    """The template logical id of the handler running in this thread (None outside any)."""
    return _RUNNING.get()


class UnknownFunction(LookupError):
    pass


def names() -> list[str]:
    """Short function names from the template (authorize, token, jwks, charges, rotate_keys)."""
    return sorted(template.function_names())


def load_handler(name: str) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    """The `handler` of functions/<name>/app.py; `name` may also be the template's logical id."""
    by_short = template.function_names()
    logical = by_short.get(name) or (name if name in by_short.values() else None)
    if logical is None:
        raise UnknownFunction(f"unknown function {name!r}; known: {', '.join(sorted(by_short))}")
    short = template.function_dir(logical).name
    module = _MODULES.get(short)
    if module is None:
        fn = template.resources("AWS::Serverless::Function")[logical]["Properties"]
        module_file, _handler_name = fn["Handler"].rsplit(".", 1)
        path = template.function_dir(logical) / f"{module_file}.py"
        spec = importlib.util.spec_from_file_location(f"authgate_function_{short}", path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        _MODULES[short] = module
    return _attributed(logical, module.handler)


def _attributed(logical: str, handler: Callable[[dict[str, Any], Any], Any]) -> Callable[[dict[str, Any], Any], Any]:
    @functools.wraps(handler)
    def run(event: dict[str, Any], context: Any) -> Any:
        token = _RUNNING.set(logical)
        try:
            return handler(event, context)
        finally:
            _RUNNING.reset(token)

    return run
