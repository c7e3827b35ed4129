"""The HTML around every answer of the demo app: its one page template, its headers, its steps."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from string import Template
from typing import Any

STYLESHEET_PATH = "/assets/authgate.css"
ICON_PATH = "/assets/icon.svg"

Answer = tuple[int, list[tuple[str, str]], bytes]


def page(issuer: str, status: int, title: str, body: str, *, script: str | None = None, flow_done: bool = False,
         form: bool = False, extra: list[tuple[str, str]] | None = None) -> Answer:
    """A page of the demo app, styled by the stack's stylesheet, with the stack's icon; `form`: its forms post to
    this app."""
    text = _template().substitute(
        title=html.escape(title), body=body, stylesheet=html.escape(issuer + STYLESHEET_PATH),
        icon=html.escape(issuer + ICON_PATH),
        script=f'<script src="{html.escape(script)}" defer></script>' if script else "",
        done="true" if flow_done else "false")
    return status, [*page_headers(issuer, script=script is not None, form=form), *(extra or [])], text.encode("utf-8")


def page_headers(issuer: str, *, script: bool = False, form: bool = False) -> list[tuple[str, str]]:
    """The demo app's pages: the API's stylesheet and icon, its own script, fetches to the API, forms to itself,
    nothing else."""
    policy = ["default-src 'none'", f"style-src {issuer}", f"img-src 'self' {issuer}"]
    if script:
        policy += ["script-src 'self'", f"connect-src {issuer}"]
    policy += ["form-action 'self'" if form else "form-action 'none'", "frame-ancestors 'none'", "base-uri 'none'"]
    return [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
            ("Content-Security-Policy", "; ".join(policy)), ("X-Content-Type-Options", "nosniff"),
            # The callback URL carries the code: never send it on (stylesheet, links).
            ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY")]


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2) if not isinstance(value, str) else value


def pre(text: str) -> str:
    return f"<pre>{html.escape(text)}</pre>"


def step(title: str, body: str) -> str:
    """A section of a page: its heading (text) and its body (HTML)."""
    return f'<section class="step"><h2>{html.escape(title)}</h2>{body}</section>'


def numbered(steps: Sequence[tuple[str, str]]) -> str:
    """A page's sections in order, each heading numbered from 1: (title, body HTML) each."""
    return "".join(step(f"{n}. {title}", body) for n, (title, body) in enumerate(steps, 1))


def part(title: str, body: str) -> str:
    """A part of a section, under a heading of its own (not numbered)."""
    return f"<h3>{html.escape(title)}</h3>{body}"


@lru_cache(maxsize=4)
def asset(name: str) -> str:
    return resources.files("authgate_cli.local").joinpath(f"demo_pages/{name}").read_text("utf-8")


@lru_cache(maxsize=1)
def _template() -> Template:
    return Template(asset("page.html"))
