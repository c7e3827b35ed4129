"""`authgate users reset-mfa`: a person who lost their authenticator loses every second factor, and enrols again."""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO

from authgate_cli.admin import text
from authgate_cli.admin.user_views import unknown_user


def remove_passkeys(tenant: str, username: str) -> int:
    """Remove every passkey of a user (WebAuthn credentials are personal data); how many there were."""
    from authgate.stores.passkeys import PasskeyStore

    passkeys = PasskeyStore()
    return sum(passkeys.remove(tenant, username, p.credential_id) for p in passkeys.of_user(tenant, username))


def reset_mfa(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    """Remove every second factor (one-time codes, recovery codes, passkeys) of a user and end their sessions: a
    person who lost their authenticator enrols again at the next sign-in."""
    from authgate.stores.user_factors import UserFactorStore
    from authgate.stores.users import UserStore
    from authgate.users.errors import UserNotFound
    from authgate_cli.admin.user_sessions import announce_ended, live_sessions

    user = UserStore().get(args.tenant, args.username)
    if user is None:
        return unknown_user(args)
    sessions = live_sessions(args.tenant, user)
    try:
        ended = UserFactorStore().reset(args.tenant, args.username)
    except UserNotFound:
        return unknown_user(args)
    announce_ended(sessions)
    removed = remove_passkeys(args.tenant, args.username)
    if args.json:
        out.write(json.dumps({"tenant_id": args.tenant, "username": args.username, "second_factors": [],
                              "passkeys_removed": removed, "sessions_valid_after": ended}) + "\n")
    else:
        out.write(f"second factors of {args.username} in tenant {args.tenant} removed "
                  f"({text.count(removed, 'passkey')}); sessions_valid_after set to now\n")
    return 0
