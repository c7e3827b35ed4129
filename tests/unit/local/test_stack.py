"""authgate_cli.local.stack: what the handlers of a local stack see."""

from __future__ import annotations

from authgate.settings import from_env
from authgate_cli.local import stack


def test_the_local_stacks_mail_names_its_sender() -> None:
    env = stack.environment(issuer="http://127.0.0.1:3000", aws_endpoint="http://127.0.0.1:4566")
    settings = from_env({**env, "AUTHGATE_OUTBOX": "/tmp/outbox.jsonl"})
    assert (settings.mail_from, settings.outbox) == ("authgate <no-reply@localhost>", "/tmp/outbox.jsonl")
