"""`authgate users sessions` and `authgate users revoke-sessions`: a user's sign-in sessions (docs/oidc.md).

`sessions` lists the user's live sessions (sid, when and how the user signed in, the clients that
got a code in it); `revoke-sessions` ends them all at once: the user's `sessions_valid_after`
moves to now, so no session or sign-in from before counts any more, and each session item is
deleted, and each client of them that registered a backchannel_logout_uri is sent a logout
token (OpenID Connect Back-Channel Logout 1.0; authgate.deliveries). Both are `authgate users` actions
(authgate_cli.admin.users): --tenant and --username, the local stack or a deployed one, JSON with --json
(times as epoch seconds; in text, ISO 8601).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from authgate_cli.admin import text
from authgate_cli.admin.user_actions import operated
from authgate_cli.admin.user_views import unknown_user


def _view(session: Any) -> dict[str, Any]:
    return {"sid": session.sid, "auth_time": session.auth_time, "acr": session.acr, "amr": list(session.amr),
            "created_at": session.created_at, "last_active": session.last_active,
            "expires_at": session.expires_at, "clients": list(session.clients)}


def list_sessions(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    """The user's live sessions, oldest first."""
    from authgate.stores.sessions import SessionStore
    from authgate.stores.users import UserStore

    user = UserStore().get(args.tenant, args.username)
    if user is None or not user.user_id:
        return unknown_user(args)
    sessions = SessionStore().standing(user)
    if args.json:
        out.write(json.dumps([_view(s) for s in sessions], indent=2) + "\n")
        return 0
    if not sessions:
        out.write(f"no session of {args.username} in tenant {args.tenant}\n")
    for s in sessions:
        out.write(f"{s.sid}  signed in {text.when(s.auth_time)} ({s.acr}, {' '.join(s.amr)})  last active "
                  f"{text.when(s.last_active)}  clients {' '.join(s.clients) or '-'}\n")
    return 0


def revoke_sessions(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    """End every session of the user now (authgate.people.actions.revoke_sessions)."""
    return operated(args, out, "revoke-sessions")
