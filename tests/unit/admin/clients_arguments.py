"""The arguments `authgate clients` parses, to call the admin.clients actions directly."""

from __future__ import annotations

import argparse


def ns(**kwargs: object) -> argparse.Namespace:
    """What `authgate clients create` parses, with `kwargs` changed: demo-tenant client_credentials by default."""
    base = {"client_id": None, "tenant": "demo", "name": None, "type": "confidential", "redirect_uri": [],
            "grant": ["client_credentials"], "scope": ["charges:read"], "error_format": "problem",
            "requires_admin_approval": False, "json": True}
    base.update(kwargs)
    return argparse.Namespace(**base)
