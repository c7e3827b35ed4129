"""Every audit action, as a type (GENERATED: do not edit).

Written by scripts/generate_audit_actions.py from catalogue.json; an action that is not in the
catalogue fails the type check wherever an event is recorded with it.
"""

from __future__ import annotations

from typing import Literal

Action = Literal[
    "signin.succeeded",
    "signin.failed",
    "account.locked",
    "account.unlocked",
    "factor.enrolled",
    "factor.removed",
    "passkey.added",
    "passkey.removed",
    "password.changed",
    "password.reset",
    "password.reset_requested",
    "session.started",
    "session.ended",
    "consent.granted",
    "consent.revoked",
    "token.issued",
    "token.refreshed",
    "token.revoked",
    "client.authentication_failed",
    "client.registered",
    "client.changed",
    "client.deleted",
    "client.secret_rotated",
    "approval.approved",
    "approval.denied",
    "charge.created",
    "charge.refused",
    "user.created",
    "identity.linked",
    "identity.unlinked",
    "user.changed",
    "user.disabled",
    "user.enabled",
    "user.deleted",
    "user.sessions_revoked",
    "tenant.created",
    "tenant.changed",
    "resource.created",
    "resource.changed",
    "resource.deleted",
    "idp.created",
    "idp.changed",
    "idp.deleted",
    "key.rotated",
    "operator.role_granted",
    "operator.role_revoked",
    "console.refused",
]
