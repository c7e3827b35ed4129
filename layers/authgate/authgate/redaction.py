"""Secrets never reach a log line: the redaction every record goes through (authgate.logs).

Callers log ids, codes and outcomes, never header values, tokens, codes, secrets, passwords or
verifiers (contract 5.7, RFC 6750 5.3, RFC 9700 4.14). This is the last line of defence for
anything that reaches a log line anyway: it runs on the final JSON document of every record
(message, extra keys, exception text and stack frames alike), so no path can bypass it.
"""

from __future__ import annotations

import re
from typing import Any

from authgate.caches import cached

REDACTED = "[redacted]"

# Member names whose values are credentials wherever they appear (dict keys, form fields,
# query parameters, header names). "code" alone is the OAuth authorization code.
SECRET_KEYS = frozenset({
    "authorization", "proxy-authorization", "password", "client_secret", "code", "code_verifier",
    "refresh_token", "access_token", "token", "id_token", "secret", "x-api-key", "api_key",
    "cookie", "set-cookie", "assertion", "client_assertion", "csrf", "request_blob", "session",
    # RFC 8628 3.2: what redeems a device authorization, and what a person types to approve it.
    "device_code", "user_code",
})
# Any member name containing one of these is treated as secret too (e.g. "new_client_secret",
# "subject_token", "X-Amz-Security-Token").
_SECRET_KEY_PARTS = ("secret", "password", "passwd", "token", "verifier", "authorization",
                     "cookie", "csrf", "assertion", "credential", "api_key", "apikey")
# Keys that contain a secret-looking part but only carry public metadata.
_PUBLIC_KEYS = frozenset({"token_type", "token_type_hint", "token_endpoint", "token_use",
                          "error_code", "error_description",
                          # An audit event's list of the RFC 9396 types a token carries, and a client's
                          # registered authentication method (authgate.audit).
                          "authorization_details_types", "token_endpoint_auth_method"})

_NAMES = "|".join(sorted({re.escape(k) for k in SECRET_KEYS} | {
    r"[\w.-]*(?:secret|password|passwd|token|verifier|csrf|assertion|api_key|apikey)[\w.-]*"}, key=len, reverse=True))

# Substrings that are credentials whatever surrounds them (order matters: whole header lines
# and JSON members first, then scheme credentials, query/form pairs, and bare JWTs). Compiled on
# the first text that may hold one (most log lines never do), not at every cold start.
@cached
def _secret_patterns() -> list[tuple[re.Pattern[str], Any]]:
    return [
        # "name": "value" / 'name': 'value' inside a text that embeds JSON or a Python repr.
        (re.compile(rf"(?i)([\"']({_NAMES})[\"']\s*:\s*)([\"'])(?:\\.|(?!\3).)*\3"),
         lambda m: m.group(0) if not is_secret_key(m.group(2)) else f"{m.group(1)}{m.group(3)}{REDACTED}{m.group(3)}"),
        # "Authorization: ..." / "Cookie: ..." header lines in a dumped request.
        (re.compile(r"(?im)\b((?:proxy-)?authorization|cookie|set-cookie|x-api-key)(\s*:\s*)[^\r\n,}\[\]]+"),
         r"\1\2" + REDACTED),
        # Credentials of an HTTP authentication scheme (RFC 9110 11.4).
        (re.compile(r"(?i)\b(bearer|basic|digest|dpop)(\s+)(?!\[redacted\])[A-Za-z0-9._~+/=-]+"), r"\1\2" + REDACTED),
        # name=value in a query string, form body or cookie header.
        (re.compile(rf"(?i)(?<![\w.-])({_NAMES})=[^&;\s\"'<>]*"),
         lambda m: m.group(0) if not is_secret_key(m.group(1)) else f"{m.group(1)}={REDACTED}"),
        # A JWS/JWT (compact serialisation): access tokens, signed blobs.
        (re.compile(r"eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*"), REDACTED),
    ]


def is_secret_key(name: Any) -> bool:
    """True when a member called `name` carries a credential."""
    return _is_secret_name(name if isinstance(name, str) else str(name))


# Every log record asks about the same few dozen names (record attributes, extra keys): memoised
# on the name as given, redaction costs a warm request a fraction of what it did. Bounded, as
# names may come from input.
@cached(maxsize=2048)
def _is_secret_name(name: str) -> bool:
    key = name.lower()
    if key in _PUBLIC_KEYS:
        return False
    return key in SECRET_KEYS or any(part in key for part in _SECRET_KEY_PARTS)


# Every pattern above needs one of these to match (a quote, "=", a scheme or header name, a JWS
# prefix): one scan rules out most values (timestamps, paths, ids) before five substitutions.
_MAY_HOLD_SECRET = re.compile(r"(?i)[\"'=]|eyJ|bearer|basic|digest|dpop|authorization|cookie|x-api-key")


def redact_text(text: str) -> str:
    """`text` with every credential-looking substring masked."""
    if len(text) <= _SHORT:
        return _redact_short(text)
    return _redact(text)


def _redact(text: str) -> str:
    if not _MAY_HOLD_SECRET.search(text):
        return text
    for pattern, replacement in _secret_patterns():
        text = pattern.sub(replacement, text)
    return text


# The short values of a line (ids, grant types, "Bearer", paths) repeat request after request: memoised,
# as key names are, so an audit event of twenty of them costs a fraction of the scans (docs/decisions.md,
# measured shortcuts). Bounded, as values may come from input.
_SHORT = 64
_redact_short = cached(maxsize=4096)(_redact)


def redact(value: Any) -> Any:
    """A JSON-ready copy of `value` with secret members and substrings masked."""
    # Most values are text, then numbers: tested first (every log record walks this).
    if type(value) is str:
        return redact_text(value)
    if value is None or type(value) in (int, float, bool):
        return value
    if isinstance(value, dict):
        return {str(k): (REDACTED if is_secret_key(k) and v not in (None, "") else redact(v))
                for k, v in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_asdict"):  # a record (NamedTuple): by field name
        return redact(value._asdict())
    if isinstance(value, (list, tuple, set, frozenset)):
        return [redact(v) for v in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    # Anything else (an exception, a dataclass, a Decimal) is logged as its text: redact that.
    return redact_text(value if isinstance(value, str) else str(value))
