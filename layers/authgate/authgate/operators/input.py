"""What an operator types, in an admin command's arguments or a console form: one clear reason per refusal.

Identifiers (client ids, tenant ids) are printable ASCII without spaces (RFC 6749 A.1 allows spaces in a client_id;
nothing here needs them, and they break shell scripts and logs). Names and usernames are text without control
characters (no terminal escapes, no line breaks that would forge a log line). An email address is one mail can be sent
to. The reasons name the command's option (`--email`): the console says the same words (docs/console.md).
"""

from __future__ import annotations

import re
import unicodedata

from authgate.clients.model import MAX_CLIENT_ID_LENGTH

MAX_ID = MAX_CLIENT_ID_LENGTH  # client and tenant ids alike
MAX_TEXT = 200
MAX_EMAIL = 254  # RFC 5321 4.5.3.1.3 (a path of 256 octets, less the angle brackets)
IDENTIFIER = re.compile(r"[\x21-\x7e]+")
_EMAIL_HOST = re.compile(r"([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?")


class InvalidInput(ValueError):
    """An argument (a form's field) refused; the message says which and why."""


def identifier(value: str, what: str, *, limit: int = MAX_ID) -> str:
    if not value:
        raise InvalidInput(f"{what} must not be empty")
    if len(value) > limit:
        raise InvalidInput(f"{what} is longer than {limit} characters")
    if not IDENTIFIER.fullmatch(value):
        raise InvalidInput(f"{what} {shown(value)} must be printable ASCII without spaces or control characters")
    return value


def text(value: str, what: str, *, limit: int = MAX_TEXT) -> str:
    """A name or username: any printable text, no control or format characters, no outer spaces."""
    if not value.strip():
        raise InvalidInput(f"{what} must not be empty")
    if len(value) > limit:
        raise InvalidInput(f"{what} is longer than {limit} characters")
    bad = next((c for c in value if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")), None)
    if bad is not None:
        raise InvalidInput(f"{what} {shown(value)} contains the control character U+{ord(bad):04X}")
    if value != value.strip():
        raise InvalidInput(f"{what} {shown(value)} starts or ends with a space")
    return value


def email(value: str) -> str:
    """An email address as mail will be sent to it: local@domain, printable ASCII without spaces, a
    dotted domain name (RFC 5321 4.1.2, 4.5.3.1)."""
    local, at, domain = value.rpartition("@")
    if (not at or not local or len(local) > 64 or len(value) > MAX_EMAIL or "@" in local
            or not IDENTIFIER.fullmatch(local) or not _EMAIL_HOST.fullmatch(domain)):
        raise InvalidInput(f"--email {shown(value)} is not an email address such as alice@example.com")
    return value


def shown(value: str) -> str:
    """The value quoted for an error line, control characters escaped so the line stays one line."""
    return repr(value[:60] + ("…" if len(value) > 60 else ""))
