"""Sending one plain-text mail: SES v2 SendEmail from the stage's identity, or the local outbox; never logged.

A stage sends mail only when its template parameter MailIdentity names a verified SES identity
(settings.mail_identity; IAM `ses:SendEmail` on it and nothing else); `authgate serve` keeps every
mail in its outbox (settings.outbox). Elsewhere there is no mail, and the pages that need it are not
offered (`available`). The body may hold a single-use link: neither the body nor the recipient is ever
logged, and a failed send is logged by its error code only.
"""

from __future__ import annotations

from typing import NamedTuple

from authgate.logs import get_logger
from authgate.settings import get_settings


class Mail(NamedTuple):
    to: str
    subject: str
    text: str


def available() -> bool:
    """Whether this stage can send mail (an SES identity, or the local outbox)."""
    settings = get_settings()
    return bool(settings.mail_identity or settings.outbox)


def send(mail: Mail) -> bool:
    """Send `mail`; False (logged, without the recipient or body) when it could not be handed over."""
    settings = get_settings()
    if settings.outbox:
        from authgate.mail import outbox

        outbox.append(settings.outbox, "mail", to=mail.to, subject=mail.subject, text=mail.text,
                      sender=settings.mail_from)
        return True
    if not settings.mail_identity:
        return False
    from botocore.exceptions import BotoCoreError, ClientError

    from authgate.aws import sesv2

    try:
        sesv2().send_email(FromEmailAddress=settings.mail_from, Destination={"ToAddresses": [mail.to]},
                           Content={"Simple": {"Subject": {"Data": mail.subject, "Charset": "UTF-8"},
                                               "Body": {"Text": {"Data": mail.text, "Charset": "UTF-8"}}}})
    except (BotoCoreError, ClientError) as exc:
        code = exc.response.get("Error", {}).get("Code", "") if isinstance(exc, ClientError) else type(exc).__name__
        get_logger().warning("mail not sent", extra={"error_code": code})
        return False
    return True
