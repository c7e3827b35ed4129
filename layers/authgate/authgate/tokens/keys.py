"""Signing-key lifecycle (next -> current -> previous -> retired). STUB: issue 5 implements."""

from __future__ import annotations


def ensure_keys() -> None:
    """Make sure a current (and next) signing key exist; called by the local emulator on start."""
