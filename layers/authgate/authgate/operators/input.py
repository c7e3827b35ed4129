"""What an operator types, at the admin CLI or in the console: one clear reason per refusal, the same words in both.

Identifiers (client ids, tenant ids) are printable ASCII without spaces (RFC 6749 A.1 allows spaces in a
client_id; nothing here needs them, and they break shell scripts and logs). Names and labels are text without
control characters (no terminal escapes, no line breaks that would forge a log line). A refusal is InvalidInput,
whose message names the field as the command's flag does (the console says the same sentence).
"""

from __future__ import annotations

import re
import unicodedata

from authgate.clients.model import MAX_CLIENT_ID_LENGTH

MAX_ID = MAX_CLIENT_ID_LENGTH  # client and tenant ids alike
MAX_TEXT = 200
IDENTIFIER = re.compile(r"[\x21-\x7e]+")


class InvalidInput(ValueError):
    """A value an operator gave that is refused; the message says which and why."""


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


def shown(value: str) -> str:
    """The value quoted for an error line, control characters escaped so the line stays one line."""
    return repr(value[:60] + ("…" if len(value) > 60 else ""))
