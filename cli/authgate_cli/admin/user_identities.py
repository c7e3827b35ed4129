"""A user's linked identities in `authgate users`: `show` lists them, `unlink` removes one IdP's (docs/users.md).

A linked identity is the person at one of the tenant's identity providers (its issuer and the upstream
subject), and signs in as the user (authgate.federation.identities). `unlink --idp` names the IdP by its
id or its issuer; the identity then signs in as nobody until it is linked again (a first sign-in
provisions or asks for the account's proof, as the IdP is configured). `delete` removes the user's
links with the user; `create --overwrite` removes the replaced person's.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from authgate_cli.admin import text, unknown
from authgate_cli.admin.user_views import fail, unknown_user


def views(tenant: str, links: tuple[Any, ...]) -> list[dict[str, Any]]:
    """Each link as shown: the IdP's id and label (from its record, "" when the IdP is no longer trusted), the
    issuer, the upstream subject, when and how it was linked."""
    from authgate.stores.identity_providers import IdentityProviderStore

    idps = {issuer: IdentityProviderStore().get(tenant, issuer) for issuer in {link.issuer for link in links}}
    return [{"idp_id": idp.idp_id if (idp := idps[link.issuer]) else "", "label": idp.label if idp else "",
             "issuer": link.issuer, "subject": link.subject, "linked_at": link.linked_at, "via": link.via}
            for link in links]


def linked(user: Any) -> tuple[Any, ...]:
    """The user's links (one Query of the index)."""
    from authgate.stores.linked_identities import LinkedIdentityStore

    links: tuple[Any, ...] = LinkedIdentityStore().of_user(user.user_id)
    return links


def write_links(shown: list[dict[str, Any]], out: IO[str]) -> None:
    """`authgate users show`, after the user's fields: the linked identities as a table, or that there are none."""
    out.write(f"linked identities: {text.count(len(shown), 'identity', 'identities') if shown else 'none'}\n")
    if shown:
        text.table(("IDP", "LABEL", "ISSUER", "SUBJECT", "LINKED_AT", "VIA"),
                   ((v["idp_id"] or "-", v["label"] or "-", v["issuer"], v["subject"], text.when(v["linked_at"]),
                     v["via"] or "-") for v in shown), out)


def unlink(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    """Remove the user's identities at the IdP `--idp` names (its id or its issuer)."""
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore

    user = UserStore().get(args.tenant, args.username)
    if user is None:
        return unknown_user(args)
    links = linked(user)
    chosen = [(link, v) for link, v in zip(links, views(args.tenant, links), strict=True)
              if args.idp in (v["issuer"], v["idp_id"])]
    if not chosen:
        return fail(unknown.linked_identity(args.tenant, args.username, args.idp))
    store = LinkedIdentityStore()
    removed = [v for link, v in chosen if store.unlink(link)]
    if args.json:
        out.write(json.dumps({"tenant_id": args.tenant, "username": args.username, "unlinked": removed},
                             indent=2) + "\n")
    else:
        for v in removed:
            out.write(f"identity {v['subject']} of {v['issuer']} unlinked from user {args.username} in tenant "
                      f"{args.tenant}\n")
        if not removed:
            out.write(f"nothing unlinked: the identities of {args.username} changed meanwhile\n")
    return 0 if removed else 1


def remove_links(user: Any) -> int:
    """Remove every link of a user replaced by `create --overwrite` (the person they named is gone); how many."""
    from authgate.stores.linked_identities import LinkedIdentityStore

    store = LinkedIdentityStore()
    return sum(store.unlink(link) for link in linked(user))

