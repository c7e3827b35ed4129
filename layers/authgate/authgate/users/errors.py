"""A user's refusals: a username the tenant already has, a user it does not hold, a reset link not usable.

Every domain package keeps its refusals in its errors.py, apart from its records (docs/architecture.md,
"Stores").
"""

from __future__ import annotations


class UserExists(ValueError):
    """A new user under a username the tenant already has (create never overwrites unless told)."""


class UserNotFound(LookupError):
    """No user with this username in the tenant (an operator's or an enrolment's target)."""


class NoPendingEnrolment(LookupError):
    """A one-time-code enrolment confirmed without one started, expired, or replaced meanwhile."""


class AttemptOvertaken(Exception):
    """A credential's success write refused in its transaction: a failure, a lock or the same code came in between
    (stores.sign_in_attempts.SignInAttempts.judged); the attempt counts as failed."""


class RelyingPartyUnusable(ValueError):
    """The issuer's host cannot be a WebAuthn relying party id (an IP address, or no host)."""


class PasskeyRefused(ValueError):
    """A WebAuthn response that does not verify (WebAuthn 7.1, 7.2): the message says why, for logs and the page."""


class SignCountRegressed(PasskeyRefused):
    """An assertion whose signature counter is not above the stored one (WebAuthn 6.1.1): a possible clone."""


class ResetLinkInvalid(Exception):
    """A password reset link that is unknown, expired or already used (one answer for all three)."""


class LinkRefused(Exception):
    """An upstream identity not linked: linked already (to this user or another), or its user gone, another person
    now, or disabled (stores.linked_identities)."""
