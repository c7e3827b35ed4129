"""Text that may travel in OAuth error fields and WWW-Authenticate parameters.

RFC 6749 5.2 / 4.1.2.1 and RFC 6750 3 restrict `error_description` to %x20-21 / %x23-5B /
%x5D-7E: printable ASCII without `"` and `\\`. Descriptions are written by us, but may quote
client input, so they are squeezed into that set rather than trusted.
"""

from __future__ import annotations

import unicodedata

# Longer descriptions help no one and make header injection-by-length attacks cheaper.
MAX_DESCRIPTION = 300


def oauth_description(text: str) -> str:
    """`text` reduced to the RFC 6749 error_description character set, whitespace collapsed."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    out = []
    for ch in ascii_text:
        if ch == '"':
            out.append("'")
        elif ch == "\\":
            out.append("/")
        elif " " <= ch <= "~":
            out.append(ch)
        else:  # control characters (CR, LF, TAB, DEL ...) never reach a header
            out.append(" ")
    return " ".join("".join(out).split())[:MAX_DESCRIPTION]
