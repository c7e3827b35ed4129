"""What an admin command says of a thing it names that the stack acted on does not have.

One line on stderr and exit status 2, as for any other mistake in what was typed (docs/local.md,
"Admin commands: exit status and output"): what is not there, then "(see `authgate ...`)", a command
that works as written and lists what there is. A tenant is checked before anything named in it, so
that a suggestion never leads to a command that would only say the tenant does not exist.
"""

from __future__ import annotations

from authgate.administration import unknown as checks
from authgate.administration.unknown import see as _see
from authgate_cli.admin.arguments import InvalidInput


def tenant(tenant_id: str) -> str:
    return checks.unknown_tenant(tenant_id)


def user(tenant_id: str, username: str) -> str:
    return f"no user {username!r} in tenant {tenant_id!r} {_see('users', 'list', '--tenant', tenant_id)}"


def linked_identity(tenant_id: str, username: str, idp: str) -> str:
    return (f"user {username!r} of tenant {tenant_id!r} has no identity linked at {idp!r} "
            f"{_see('users', 'show', '--tenant', tenant_id, '--username', username)}")


def consent(tenant_id: str, username: str, client_id: str) -> str:
    return (f"user {username!r} of tenant {tenant_id!r} has not allowed client {client_id!r} "
            f"{_see('users', 'consents', '--tenant', tenant_id, '--username', username)}")


def client(client_id: str) -> str:
    return f"no client {client_id!r} {_see('clients', 'list')}"


def resource(uri: str) -> str:
    return f"no resource {uri!r} {_see('resources', 'list')}"


def identity_provider(tenant_id: str, issuer: str) -> str:
    return f"tenant {tenant_id!r} trusts no identity provider {issuer!r} {_see('idps', 'list', '--tenant', tenant_id)}"


def signing_key(kid: str) -> str:
    return f"no signing key {kid!r} {_see('keys', 'list')}"


def role(username: str, why: str) -> str:
    """An operator who does not hold the role (or a tenant of it) a revocation names."""
    return f"operator {username!r} {why} {_see('operators', 'show', '--username', username)}"


def nothing_to_change(noun: str, options: str) -> InvalidInput:
    """`update` given nothing to change: what it takes."""
    return InvalidInput(f"update needs {options} {_see(noun, 'update', '--help')}")


def existing_tenant(tenant_id: str) -> None:
    """The tenant exists on the stack the command acts on (checked once the stack is known)."""
    checks.existing_tenants((tenant_id,))


def existing_tenants(tenant_ids: tuple[str, ...]) -> None:
    checks.existing_tenants(tenant_ids)
