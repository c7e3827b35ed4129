"""A user's linked identities in `authgate users`: `show` lists them, `unlink` removes one IdP's (docs/users.md).

A linked identity is the person at one of the tenant's identity providers (its issuer and the upstream
subject), and signs in as the user (authgate.federation.identities). `unlink --idp` names the IdP by its
id or its issuer; the identity then signs in as nobody until it is linked again (a first sign-in
provisions or asks for the account's proof, as the IdP is configured). `delete` removes the user's
links with the user; `create --overwrite` removes the replaced person's. What they read and remove is the runtime's
authgate.people.identities, which the console calls too.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from authgate_cli.admin import text, unknown
from authgate_cli.admin.user_views import fail, unknown_user


def write_links(shown: list[dict[str, Any]], out: IO[str]) -> None:
    """`authgate users show`, after the user's fields: the linked identities as a table, or that there are none."""
    out.write(f"linked identities: {text.count(len(shown), 'identity', 'identities') if shown else 'none'}\n")
    if shown:
        text.table(("IDP", "LABEL", "ISSUER", "SUBJECT", "LINKED_AT", "VIA"),
                   ((v["idp_id"] or "-", v["label"] or "-", v["issuer"], v["subject"], text.when(v["linked_at"]),
                     v["via"] or "-") for v in shown), out)


def unlink(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    """Remove the user's identities at the IdP `--idp` names (its id or its issuer): authgate.people.identities,
    which the console calls too."""
    from authgate.people.identities import NotLinked
    from authgate.people.identities import unlink as unlinked
    from authgate.users.errors import UserNotFound

    try:
        outcome = unlinked(args.tenant, args.username, args.idp)
    except UserNotFound:
        return unknown_user(args)
    except NotLinked:
        return fail(unknown.linked_identity(args.tenant, args.username, args.idp))
    out.write(json.dumps(outcome.figures, indent=2) + "\n" if args.json else outcome.said + "\n")
    return 0 if outcome.figures["unlinked"] else 1
