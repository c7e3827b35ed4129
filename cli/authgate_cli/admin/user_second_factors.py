"""`authgate users reset-mfa`: a person who lost their authenticator loses every second factor, and enrols again."""

from __future__ import annotations

import argparse
import sys
from typing import IO

from authgate_cli.admin.user_actions import operated


def reset_mfa(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    """Remove every second factor (one-time codes, recovery codes, passkeys) of a user and end their sessions: a
    person who lost their authenticator enrols again at the next sign-in (authgate.people.actions.reset_mfa)."""
    return operated(args, out, "reset-mfa")
