"""The arguments `authgate users ACTION` parses, for the admin.users tests."""

from __future__ import annotations

import argparse


def user_args(command: str = "create", **kwargs: object) -> argparse.Namespace:
    """What `authgate users COMMAND` parses for bob of the demo tenant, with `kwargs` changed."""
    base = {"users_command": command, "tenant": "demo", "username": "bob", "password_stdin": True,
            "overwrite": False, "name": None, "email": None, "email_verified": None, "json": False}
    base.update(kwargs)
    return argparse.Namespace(**base)
