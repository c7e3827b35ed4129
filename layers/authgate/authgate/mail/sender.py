"""Sending one plain-text mail: SES v2 SendEmail from the stage's identity, or the local outbox; never logged.

A stage sends mail only when its template parameter MailIdentity names a verified SES identity
(settings.mail_identity); `authgate serve` keeps every mail in its outbox (settings.outbox).
Elsewhere there is no mail, and the pages that need it are not offered (`available`). Only the
deliver function sends (authgate.deliveries.queued_mail; IAM `ses:SendEmail` on the identity and
nothing else): a flow queues its mail, so no answer waits for SES. The body may hold a single-use
link: neither the body nor the recipient is ever logged or put in an exception.
"""

from __future__ import annotations

from typing import NamedTuple

from authgate.settings import get_settings

# SES v2 SendEmail errors that a later attempt may get past: throttling, the daily quota, a
# paused account, and SES's own failures (any 5xx). Anything else (MessageRejected, an
# unverified identity, a bad request) is given up at once.
RETRYABLE = frozenset({"TooManyRequestsException", "LimitExceededException", "SendingPausedException",
                       "Throttling", "ThrottlingException", "ServiceUnavailable", "InternalFailure"})


class Mail(NamedTuple):
    to: str
    subject: str
    text: str


class NotSent(Exception):
    """SES did not take the mail: `internal` is its error code (for logs), `retry` whether to try again later."""

    def __init__(self, internal: str, *, retry: bool) -> None:
        super().__init__(internal)
        self.internal = internal
        self.retry = retry


def available() -> bool:
    """Whether this stage can send mail (an SES identity, or the local outbox)."""
    settings = get_settings()
    return bool(settings.mail_identity or settings.outbox)


def send(mail: Mail) -> None:
    """Hand `mail` to SES (or the local outbox); NotSent when it was not taken."""
    settings = get_settings()
    if settings.outbox:
        from authgate.mail import outbox

        outbox.append(settings.outbox, "mail", to=mail.to, subject=mail.subject, text=mail.text,
                      sender=settings.mail_from)
        return
    if not settings.mail_identity:
        raise NotSent("no MailIdentity", retry=False)
    from botocore.exceptions import BotoCoreError, ClientError

    from authgate.aws import sesv2

    try:
        sesv2().send_email(FromEmailAddress=settings.mail_from, Destination={"ToAddresses": [mail.to]},
                           Content={"Simple": {"Subject": {"Data": mail.subject, "Charset": "UTF-8"},
                                               "Body": {"Text": {"Data": mail.text, "Charset": "UTF-8"}}}})
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "")
        status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)
        raise NotSent(code, retry=code in RETRYABLE or status >= 500) from None
    except BotoCoreError as exc:  # no answer (connection, timeout): it may pass
        raise NotSent(type(exc).__name__, retry=True) from None
