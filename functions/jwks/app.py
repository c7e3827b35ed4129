"""Lambda handler: published keys, RFC 8414 metadata, problem pages, and the 404/405 catch-all."""

from __future__ import annotations

from authgate.http.app import App

# "/{proxy+}" and "/" have no routes: every request there is a 404 rendered by the App.
handler = App("jwks", {})
