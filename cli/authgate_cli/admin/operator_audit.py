"""Every mutating admin command recorded in the audit trail: who ran it, what it changed, how it ended.

`target.run` starts a `Recording` for the command it runs (None for a command that changes
nothing: list, show, sessions) and finishes it with the command's exit status. The event names
the operator: the AWS principal's ARN on a stage (STS GetCallerIdentity, once per command), the
OS user on the local stack; its details are the arguments the command was given (never a
password: they are read from standard input, and the event is redacted as every log line is).
It goes where the stage's audit function reads: the audit stream on a stage (kinesis:PutRecord,
which the operator needs beside the tables' grants; docs/audit.md), the trail's directory
locally (through the audit function's own handler). A change the trail could not record is said
on stderr and fails the command (exit status 1): the change is made, its record is not.
"""

from __future__ import annotations

import argparse
import getpass
import sys
import uuid
from dataclasses import dataclass, field
from typing import Any

from authgate_cli import version

# (command group, action) -> (audit action, what it acts on)
COMMANDS: dict[tuple[str, str], tuple[str, str]] = {
    ("users", "create"): ("user.created", "user"),
    ("users", "update"): ("user.changed", "user"),
    ("users", "disable"): ("user.disabled", "user"),
    ("users", "enable"): ("user.enabled", "user"),
    ("users", "delete"): ("user.deleted", "user"),
    ("users", "reset-password"): ("password.reset", "user"),
    ("users", "unlock"): ("account.unlocked", "user"),
    ("users", "reset-mfa"): ("factor.removed", "user"),
    ("users", "revoke-sessions"): ("user.sessions_revoked", "user"),
    ("users", "send-reset-link"): ("password.reset_requested", "user"),
    ("users", "revoke-consent"): ("consent.revoked", "user"),
    ("users", "unlink"): ("identity.unlinked", "user"),
    ("clients", "create"): ("client.registered", "client"),
    ("clients", "update"): ("client.changed", "client"),
    ("clients", "rotate-secret"): ("client.secret_rotated", "client"),
    ("clients", "delete"): ("client.deleted", "client"),
    ("tenants", "create"): ("tenant.created", "tenant"),
    ("tenants", "update"): ("tenant.changed", "tenant"),
    ("resources", "create"): ("resource.created", "resource"),
    ("resources", "update"): ("resource.changed", "resource"),
    ("resources", "delete"): ("resource.deleted", "resource"),
    ("idps", "create"): ("idp.created", "idp"),
    ("idps", "update"): ("idp.changed", "idp"),
    ("idps", "delete"): ("idp.deleted", "idp"),
    ("keys", "rotate"): ("key.rotated", "key"),
    ("saml-keys", "add"): ("key.rotated", "key"),
    ("saml-keys", "retire"): ("key.rotated", "key"),
    ("operators", "grant"): ("operator.role_granted", "user"),
    ("operators", "revoke"): ("operator.role_revoked", "user"),
}
# Arguments that say which stack, how to print, or how a secret is read: not what changed.
_NOT_CHANGES = {"func", "command", "url", "stack_name", "region", "json", "password_stdin"}


class NotRecorded(Exception):
    """The command's change could not be put in the audit trail."""


@dataclass
class Recording:
    group: str
    action: str
    kind: str
    args: argparse.Namespace
    tenant: str = ""
    target_id: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def finish(self, status: int | None, error: str = "") -> None:
        """Record the command: a success for exit status 0, else a failure with its status or error."""
        from authgate import audit
        from authgate.audit.event import build
        from authgate.audit.record import redacted

        if self.kind == "user" and status == 0:
            self._user()  # a created user's id is known only now
        try:
            operator = who()
        except Exception as exc:  # STS refused or unreachable: the change is not recorded
            raise NotRecorded(f"who ran it is unknown: {type(exc).__name__}: {exc}") from exc
        audit.bind("", f"authgate-cli/{version()}", str(uuid.uuid4()))
        details = {**self.extra, "command": f"authgate {self.group} {self.args_action()}",
                   **{k: v for k, v in sorted(vars(self.args).items())
                      if k not in _NOT_CHANGES and not k.endswith("_command") and v not in (None, False, [], "")}}
        target = (audit.user(self.target_id, username=self.username() or None)
                  if self.kind == "user" else audit.Party(self.kind, self.target_id))
        event = redacted(build(self.action, self.tenant, actor=operator, target=target,  # type: ignore[arg-type]
                               outcome="success" if status == 0 else "failure",
                               reason=None if status == 0 else (error or f"exit_status_{status}"), details=details))
        send(event)

    def username(self) -> str:
        """The person acted on: --username (`authgate operators` names its dest `operator`)."""
        return str(getattr(self.args, "username", None) or getattr(self.args, "operator", None) or "")

    def args_action(self) -> str:
        return str(getattr(self.args, f"{self.group}_command", ""))

    def _user(self) -> None:
        from authgate.stores.users import UserStore

        user = UserStore().get(self.tenant, self.username())
        if user is not None:
            self.target_id = user.user_id
            if user.email:
                self.extra["email"] = user.email


def start(args: argparse.Namespace, group: str) -> Recording | None:
    """The recording of a command that changes something (before it runs: a deleted user's id is read now)."""
    known = COMMANDS.get((group, str(getattr(args, f"{group}_command", ""))))
    if known is None:
        return None
    action, kind = known
    recording = Recording(group, action, kind, args, tenant=str(getattr(args, "tenant", None) or ""))
    if group == "operators":  # an operator is a person of the operators tenant; --tenant names the role's tenants
        from authgate.settings import get_settings

        recording.tenant = get_settings().operators_tenant
    if kind == "user":
        recording._user()
    elif kind == "client":
        recording.target_id = str(getattr(args, "client_id", None) or "")
        if recording.target_id and not recording.tenant:
            from authgate.stores.clients import ClientStore

            client = ClientStore().get(recording.target_id, any_environment=True)
            recording.tenant = client.tenant_id if client is not None else ""
    elif kind == "tenant":
        recording.target_id = recording.tenant = str(args.tenant_id)
    elif kind == "resource":
        recording.target_id = str(args.resource)
    elif kind == "idp":
        recording.target_id = str(args.issuer)
    else:
        recording.target_id = "signing-keys"
    _CURRENT[:] = [recording]
    return recording


_CURRENT: list[Recording] = []  # the command being recorded (one per process)


def made(target_id: str) -> None:
    """What the command being recorded made without its arguments naming it (a generated client id)."""
    if _CURRENT and not _CURRENT[-1].target_id:
        _CURRENT[-1].target_id = target_id


def who() -> Any:
    """The operator: the AWS principal on a stage (one STS call), the OS user locally."""
    from authgate import audit
    from authgate.settings import get_settings

    if get_settings().stage == "local":
        user = getpass.getuser()
        return audit.operator(user, f"local:{user}")
    arn = str(_client("sts").get_caller_identity()["Arn"])
    return audit.operator(arn.rsplit("/", 1)[-1], arn)


def send(event: dict[str, Any]) -> None:
    """Put `event` where the stage's audit function reads: the stream, or locally the trail's directory."""
    from authgate.audit.record import line_of
    from authgate.settings import get_settings

    trail = get_settings().audit_trail
    line = line_of(event)
    try:
        if trail.stream:
            _client("kinesis").put_record(StreamName=trail.stream, Data=line.encode("utf-8"),
                                          PartitionKey=event["id"])
        elif trail.directory:
            from authgate_cli.local.audit_trail import deliver

            deliver([line])
        else:
            raise NotRecorded("the stack names no audit stream (deploy the current template.yaml)")
    except NotRecorded:
        raise
    except Exception as exc:  # whatever stopped it, the operator must hear
        raise NotRecorded(f"{type(exc).__name__}: {exc}") from exc


def _client(service: str) -> Any:
    import boto3

    from authgate.settings import get_settings

    settings = get_settings()
    return boto3.client(service, region_name=settings.aws_region, endpoint_url=settings.aws_endpoint_url or None)


def report(command: str, problem: NotRecorded) -> int:
    sys.stderr.write(f"authgate {command}: the change was made but the audit trail did not record it ({problem}); "
                     "record it by hand and check the trail (docs/audit.md)\n")
    return 1
