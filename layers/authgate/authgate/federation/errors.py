"""Refusals of a federated sign-in: the upstream's answer did not hold, or the person cannot sign in with it."""

from __future__ import annotations


class UpstreamRefused(Exception):
    """The identity provider's answer fails a protocol rule: `reason` a short code (for logs and the
    page), `internal` what exactly failed (logs only; never a token, a code or a secret)."""

    def __init__(self, reason: str, internal: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.internal = internal


class LinkRequired(Exception):
    """A local account claims this person's email: it is linked only after the person proves it."""


class ProvisioningRefused(Exception):
    """No account for this person, and the identity provider may not create one."""
