"""The settings of clients that register themselves (docs/agents.md): Client ID Metadata Documents and RFC 7591."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from authgate.settings.environment import SettingsError, boolean, integer
from authgate.settings.model import DEFAULTS


def self_registration(env: Mapping[str, str], stage: str) -> dict[str, Any]:
    """The settings of clients that register themselves (client metadata documents, docs/agents.md)."""
    d = DEFAULTS
    loopback = boolean(env, "AUTHGATE_ALLOW_LOOPBACK_OUTBOUND", d.allow_loopback_outbound)
    if loopback and stage != "local":
        raise SettingsError("AUTHGATE_ALLOW_LOOPBACK_OUTBOUND is for the local stack only "
                            f"(AUTHGATE_STAGE=local), not {stage}")
    low = integer(env, "AUTHGATE_CLIENT_METADATA_MIN_CACHE", d.client_metadata_min_cache, 60, 86400)
    return {
        "client_metadata_documents": boolean(env, "AUTHGATE_CLIENT_METADATA_DOCUMENTS", d.client_metadata_documents),
        "allow_loopback_outbound": loopback,
        "client_metadata_fetch_limit": integer(env, "AUTHGATE_CLIENT_METADATA_FETCH_LIMIT",
                                               d.client_metadata_fetch_limit, 1, 10_000),
        "client_metadata_source_limit": integer(env, "AUTHGATE_CLIENT_METADATA_SOURCE_LIMIT",
                                                d.client_metadata_source_limit, 1, 10_000),
        "client_metadata_deployment_limit": integer(env, "AUTHGATE_CLIENT_METADATA_DEPLOYMENT_LIMIT",
                                                    d.client_metadata_deployment_limit, 1, 100_000),
        "client_metadata_min_cache": low,
        "client_metadata_max_cache": integer(env, "AUTHGATE_CLIENT_METADATA_MAX_CACHE", d.client_metadata_max_cache,
                                             low, 7 * 86400),
        "dynamic_registration": boolean(env, "AUTHGATE_DYNAMIC_REGISTRATION", d.dynamic_registration),
        "registration_rate": integer(env, "AUTHGATE_REGISTRATION_RATE", d.registration_rate, 1, 10_000),
        "registration_cap": integer(env, "AUTHGATE_REGISTRATION_CAP", d.registration_cap, 1, 1_000_000),
        "registration_idle_days": integer(env, "AUTHGATE_REGISTRATION_IDLE_DAYS", d.registration_idle_days, 1, 400),
    }
