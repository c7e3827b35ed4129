"""The settings of the operators' console (docs/console.md): whose people its operators are, how fresh their sign-in,
and which function runs a signing-key rotation step when an operator asks for one."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from authgate.settings.environment import SettingsError, integer
from authgate.settings.model import DEFAULTS

# A tenant id as the template's OperatorsTenant parameter allows it.
_TENANT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
# The console's max_age (OpenID Connect Core 3.1.2.1): the template allows 300 s to a day; the variable goes down
# to 5 s so that a test stack can watch a sign-in expire.
MAX_AGE_BOUNDS = (5, 86400)
# A Lambda function's name or ARN, as Invoke takes it (FunctionName: at most 170 characters).
_FUNCTION = re.compile(r"[A-Za-z0-9][A-Za-z0-9:._-]{0,169}")


def console(env: Mapping[str, str]) -> dict[str, Any]:
    """AUTHGATE_OPERATORS_TENANT (the tenant whose users are the operators), AUTHGATE_CONSOLE_MAX_AGE (seconds
    an operator's sign-in serves the console before they sign in again) and AUTHGATE_ROTATE_KEYS_FUNCTION (the
    rotation function's name or ARN, which the console invokes for "Rotate now"; the local stack's by default)."""
    tenant = env.get("AUTHGATE_OPERATORS_TENANT") or DEFAULTS.operators_tenant
    if not _TENANT.fullmatch(tenant):
        raise SettingsError(f"AUTHGATE_OPERATORS_TENANT must be a tenant id (letters, digits, '.', '_', '-'), "
                            f"got {tenant[:80]!r}")
    function = env.get("AUTHGATE_ROTATE_KEYS_FUNCTION") or DEFAULTS.rotate_keys_function
    if not _FUNCTION.fullmatch(function):
        raise SettingsError(f"AUTHGATE_ROTATE_KEYS_FUNCTION must be a Lambda function's name or ARN, got {function[:80]!r}")
    return {"operators_tenant": tenant,
            "console_max_age": integer(env, "AUTHGATE_CONSOLE_MAX_AGE", DEFAULTS.console_max_age, *MAX_AGE_BOUNDS),
            "rotate_keys_function": function}
