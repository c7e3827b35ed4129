"""http.pages.assets: each page asset is read from its file, linked with its digest and served immutable."""

from __future__ import annotations

import hashlib

import pytest

from authgate.http.pages.assets import Asset
from authgate.http.pages.icon import ICON
from authgate.http.pages.script import SCRIPT
from authgate.http.pages.stylesheet import STYLESHEET


@pytest.mark.parametrize(("asset", "path", "content_type", "own_headers"), [
    (STYLESHEET, "/assets/authgate.css", "text/css; charset=utf-8", {}),
    (SCRIPT, "/assets/passkeys.js", "text/javascript; charset=utf-8", {}),
    (ICON, "/assets/icon.svg", "image/svg+xml", {"Content-Security-Policy": "default-src 'none'"}),
])
def test_an_asset_is_linked_by_its_digest_and_served_immutable(asset: Asset, path: str, content_type: str,
                                                                own_headers: dict[str, str]) -> None:
    with open(asset.file, encoding="utf-8") as f:
        content = f.read()
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()[:16]
    assert (asset.path, asset.version(), asset.href()) == (path, digest, f"..{path}?v={digest}")
    response = asset.response()
    assert (response.status, response.body, response.headers) == (200, content, {
        "Content-Type": content_type, "Cache-Control": "public, max-age=31536000, immutable", **own_headers,
        "X-Content-Type-Options": "nosniff", "ETag": f'"{digest}"'})
