"""What `authgate resources` accepts: resource URIs (RFC 8707 2), scopes (RFC 6749 3.3), tenants, descriptions.

The checks are the console's too (authgate.administration.resources); here the command's arguments become theirs.
"""

from __future__ import annotations

import argparse

from authgate.administration import resources as checks
from authgate.administration.resources import Wording
from authgate.resources.model import Resource

# What the command checks before a stack is looked up, by the names it uses.
resource_uri = checks.resource_uri
scopes = checks.scopes
tenants = checks.tenants
delegation_targets = checks.delegation_targets


def wording(args: argparse.Namespace) -> Wording:
    """--name, --description and --scope-description as given."""
    return Wording(getattr(args, "name", None), getattr(args, "description", None),
                   getattr(args, "scope_description", None) or [])


def described(resource: Resource, args: argparse.Namespace) -> Resource:
    """`resource` with the --name, --description and --scope-description given ("" clears a name or description);
    descriptions of scopes it no longer has are dropped."""
    return checks.described(resource, wording(args))
