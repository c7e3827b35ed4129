"""Federation's refusals: an upstream answer that does not hold, an identity not yet linked, a person the IdP may
not create. Only the exception classes, so authgate.failures and the flows can name them without loading more."""

from __future__ import annotations


class UpstreamRefused(Exception):
    """An upstream response failed a rule (signature, issuer, audience, nonce, state, time, replay...).

    `reason` is a short code for logs and for the page the person sees; `internal` is detail for logs
    only (never a token, assertion, secret or code)."""

    def __init__(self, reason: str, internal: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.internal = internal


class LinkRequired(Exception):
    """An account of the tenant already claims the upstream identity's email: the identity is linked to it only
    once the person proves that account (its password or passkey), or when the IdP is trusted for verified
    emails and says this one is verified."""


class ProvisioningRefused(Exception):
    """No account is linked to the upstream identity and its IdP may not create one (`--create-users` off): the
    person is told to ask the tenant's administrator."""
