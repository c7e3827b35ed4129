"""A person signs in with a password (RFC 6749 4.1.1 "authenticates the resource owner"; 10.10): every
throttle of a sign-in, in one place, for every flow (the interaction's password step and proof).

Two throttles stand before a password is believed: the failed sign-ins of the account and of the
address (limits.auth_failures, `AuthFailureGuard("user")`: at the quota the answer is 429
rate_limited, a temporarily_unavailable redirect, before the password is checked), and the
account's own (stores.users, authgate.users.model: a wait window after repeated failures, then a
lock; such a refusal looks like a wrong password). A failure counts against both. A code typed beside the
password goes through the second factor's own throttle as well (stores.factor_attempts). A tenant that
does not exist holds no user: the same scrypt work and answer as a wrong password.

Which account a sign-in names (`account_of`): the client's tenant; for a self-registered client
(no tenant) the organisation typed on the form, else the tenant whose login domain is the email
address's domain, else the deployment's default tenant. An email address typed as the username
signs in the tenant's user with that email. The same reads happen whatever exists, so neither
their answers nor their timing say which tenants, domains or emails are known (docs/users.md).
"""

from __future__ import annotations

from authgate.audit import person
from authgate.errors import ApiError
from authgate.limits.auth_failures import AuthFailureGuard
from authgate.settings import get_settings
from authgate.stores.factor_attempts import FactorAttempts
from authgate.stores.tenants import TenantStore
from authgate.stores.users import UserStore
from authgate.users.model import LoginResult

# No tenant id is "-" (ids start with a letter or digit): a sign-in that names no tenant finds no user,
# through the same reads as any other.
NO_TENANT = "-"


def tenant_of(client_tenant: str, typed_tenant: str, username: str) -> str:
    """The tenant a sign-in names (the module's docstring), NO_TENANT when none does."""
    tenant_id = client_tenant or typed_tenant
    if not tenant_id and "@" in username:
        tenant_id = TenantStore().login_domain_owner(username.rpartition("@")[2])
    return tenant_id or get_settings().default_tenant or NO_TENANT


def account_of(client_tenant: str, typed_tenant: str, username: str) -> tuple[str, str]:
    """(tenant id, username) of the account a sign-in names: see the module's docstring."""
    tenant_id = tenant_of(client_tenant, typed_tenant, username)
    if "@" in username:
        found = UserStore().by_email(tenant_id, username)
        if len(found) == 1:
            username = found[0].username
    return tenant_id, username


def sign_in(tenant_id: str, username: str, password: str, source_ip: str, code: str = "") -> LoginResult:
    """The sign-in's outcome (`reason` for logs only); ApiError rate_limited when a failure counter is full.

    With a `code` (a one-time or recovery code typed on the form beside the password), both are checked in one
    attempt (FactorAttempts.verify_with_code, under the second factor's throttle too): one failure, one answer,
    whichever was wrong, and while the factor is locked the same answer whatever the password."""
    guard, account = AuthFailureGuard("user"), f"{tenant_id}/{username}"
    try:
        guard.gate(account, source_ip)
    except ApiError:
        person.refused(tenant_id, username, "throttled", method="password_and_code" if code else "password")
        raise
    if code:
        result = FactorAttempts().verify_with_code(tenant_id, username, password, code)
    else:
        result = UserStore().verify(tenant_id, username, password)
    if not result.ok:
        guard.record_failure(account, source_ip)
    person.attempted(tenant_id, username, result, method="password_and_code" if code else "password")
    return result
