from __future__ import annotations

from tests.events import issuer  # noqa: F401
