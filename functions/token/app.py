"""Lambda handler: the token function. Routes are filled in by their issue; thin by design."""

from __future__ import annotations

from authgate.http.app import App

handler = App("token", {})
