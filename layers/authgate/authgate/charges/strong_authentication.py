"""Strong customer authentication for money at the charges API (RFC 9470; docs/strong-authentication.md).

A charge at or above its tenant's threshold needs a token of a user's grant whose sign-in had
acr `mfa` and is at most the tenant's max age old (RFC 9068 2.2.1 acr, auth_time). Tokens without
a user (client_credentials) are not subject: a merchant-initiated charge has nobody to step up.
The tenant is the one the charge's currencies were read from (warm-cached): no extra read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.assurance import MFA, satisfies
from authgate.tenants.errors import StrongAuthenticationRequired

if TYPE_CHECKING:
    from authgate.tenants.model import Tenant
    from authgate.tokens.principal import Principal


def check(principal: Principal, tenant: Tenant | None, amount: int, now: int) -> None:
    """Nothing when the charge may go ahead; StrongAuthenticationRequired naming what is missing otherwise."""
    if tenant is None or not tenant.needs_strong_authentication(amount) or not principal.on_behalf_of_user:
        return
    max_age = tenant.sca_max_age
    if not satisfies(principal.acr, MFA):
        raise StrongAuthenticationRequired(
            f"A charge of {tenant.sca_threshold} or more needs a sign-in with a second factor (acr mfa); "
            f"authorize again with acr_values=mfa and max_age={max_age}.", (MFA,), max_age)
    if principal.auth_time is None or now - principal.auth_time > max_age:
        raise StrongAuthenticationRequired(
            f"A charge of {tenant.sca_threshold} or more needs a sign-in at most {max_age} seconds old; "
            f"authorize again with acr_values=mfa and max_age={max_age}.", (MFA,), max_age)
