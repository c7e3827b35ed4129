"""Single-use JWT ids (RFC 9449 11.1 DPoP proofs; RFC 7523 3 item 7 client assertions): what a second use raises.

The ids are remembered by stores.replay until they expire.
"""

from __future__ import annotations


class Replayed(Exception):
    """This JWT id was already seen within its window (RFC 9449 11.1, RFC 7523 3 item 7)."""
