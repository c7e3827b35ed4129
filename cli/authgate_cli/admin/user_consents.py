"""`authgate users consents` and `authgate users revoke-consent`: the clients a user allowed (docs/users.md).

`consents` lists the clients the user approved and what is remembered for each (the scopes per resource,
when last approved, how many grants were made under it); `revoke-consent --client C` withdraws one
(authgate.people.consents, as the console does; authgate.grants.consent, as the user's "Remove access" on the
account page does): the client asks for
consent again at its next authorization request, and its refresh tokens are refused. The trail records
consent.revoked with the operator as actor (operator_audit). Both are `authgate users` actions: --tenant
and --username, the local stack or a deployed one, JSON with --json (times as epoch seconds; in text,
ISO 8601).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from authgate_cli.admin import text, unknown
from authgate_cli.admin.user_views import fail, unknown_user


def _view(consent: Any) -> dict[str, Any]:
    return {"client_id": consent.client_id, "scopes": {r: list(s) for r, s in consent.scopes.items()},
            "granted_at": consent.granted_at or None, "grants": len(consent.grants)}


def _user(args: argparse.Namespace) -> Any:
    from authgate.stores.users import UserStore

    user = UserStore().get(args.tenant, args.username)
    return user if user is not None and user.user_id else None


def list_consents(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    """The clients the user allowed, by client id."""
    from authgate.stores.consents import ConsentStore

    user = _user(args)
    if user is None:
        return unknown_user(args)
    consents = ConsentStore().of_user(args.tenant, user.user_id)
    if args.json:
        out.write(json.dumps([_view(c) for c in consents], indent=2) + "\n")
        return 0
    if not consents:
        out.write(f"no client allowed by {args.username} in tenant {args.tenant}\n")
        return 0
    text.table(("CLIENT", "SCOPES", "GRANTED_AT", "GRANTS"),
               ((c.client_id, " ".join(f"{' '.join(s)} ({r})" for r, s in c.scopes.items()) or "-",
                 text.when(c.granted_at), str(len(c.grants))) for c in consents), out)
    return 0


def revoke_consent(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    """Withdraw the user's consent for one client and revoke the grants made under it (authgate.people.consents,
    which the console calls too)."""
    from authgate.people.consents import NoConsent, UnknownClient, withdraw_consent
    from authgate.users.errors import UserNotFound

    try:
        outcome = withdraw_consent(args.tenant, args.username, args.client_id)
    except UserNotFound:
        return unknown_user(args)
    except UnknownClient:
        return fail(unknown.client(args.client_id))
    except NoConsent:
        return fail(unknown.consent(args.tenant, args.username, args.client_id))
    out.write(json.dumps(outcome.figures, indent=2) + "\n" if args.json else outcome.said + "\n")
    return 0
