"""The pages' static files (stylesheet, passkey script, icon): read once, linked with a digest, immutable.

Each is a file of this package served at `/assets/<name>` (a template route) and linked relative to
the page (`../assets/<name>?v=<digest>`: most pages live one level down, /oauth/authorize and
/problems/{code}; the pages of an identity provider's answer two, /oauth/federation/callback and
/saml/{tenant}/acs: `depth`), so the link works behind a stage path or a custom domain alike and stays
same-origin (CSP 'self'). The link carries a digest of the content, so the file is cached for a
year and a changed file is a new URL. Read with open(), not importlib.resources, as
errors.catalogue does: that import lengthens every function's cold start (docs/decisions.md), and
the stylesheet is on every error renderer's import path.
"""

from __future__ import annotations

import hashlib
import os
from typing import NamedTuple

from authgate.caches import cached
from authgate.http.response import Response

DIRECTORY = os.path.dirname(__file__)


class Asset(NamedTuple):
    """One static file: its name in this package and under /assets/, and its response's Content-Type."""

    name: str
    content_type: str
    # Headers of this kind of file only (an SVG opened on its own: a CSP that runs nothing).
    headers: tuple[tuple[str, str], ...] = ()

    @property
    def path(self) -> str:
        return f"/assets/{self.name}"

    @property
    def file(self) -> str:
        return os.path.join(DIRECTORY, self.name)

    def text(self) -> str:
        return _read(self.file)

    def version(self) -> str:
        """The first 16 hex digits of the content's SHA-256."""
        return _digest(self.file)

    def href(self, depth: int = 1, root: str = "") -> str:
        """The URL a page `depth` levels down links, relative to the page, with the content's digest; given `root`
        (the issuer: the console's pages), absolute under it."""
        return f"{root or '/'.join(['..'] * depth)}{self.path}?v={self.version()}"


    def response(self) -> Response:
        """The file, immutable for a year (the link changes with the content)."""
        return Response(200, self.text(), {
            "Content-Type": self.content_type,
            "Cache-Control": "public, max-age=31536000, immutable",
            **dict(self.headers),
            "X-Content-Type-Options": "nosniff",
            "ETag": f'"{self.version()}"',
        })


def depth_of(resource: str) -> int:
    """How many levels down a page of the route `resource` is ("/oauth/authorize": 1, "/saml/{tenant}/acs": 2)."""
    return max(1, resource.strip("/").count("/"))


@cached(maxsize=8)
def _read(file: str) -> str:
    with open(file, encoding="utf-8") as f:
        return f.read()


@cached(maxsize=8)
def _digest(file: str) -> str:
    return hashlib.sha256(_read(file).encode("utf-8")).hexdigest()[:16]
