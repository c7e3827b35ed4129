"""The self-registration settings (docs/agents.md): off by default, the loopback exception local only."""

from __future__ import annotations

import pytest

from authgate.settings import SettingsError, from_env


def test_off_by_default() -> None:
    s = from_env({})
    assert (s.client_metadata_documents, s.allow_loopback_outbound, s.dynamic_registration) == (
        False, False, False)
    assert (s.client_metadata_min_cache, s.client_metadata_max_cache, s.client_metadata_fetch_limit) == (
        300, 86400, 30)
    assert (s.client_metadata_source_limit, s.client_metadata_deployment_limit) == (10, 600)
    assert (s.registration_cap, s.registration_idle_days, s.registration_rate) == (1000, 30, 20)


def test_the_loopback_exception_is_refused_on_a_deployed_stage() -> None:
    assert from_env({"AUTHGATE_ALLOW_LOOPBACK_OUTBOUND": "true"}).allow_loopback_outbound
    with pytest.raises(SettingsError) as caught:
        from_env({"AUTHGATE_STAGE": "production", "AUTHGATE_ALLOW_LOOPBACK_OUTBOUND": "true"})
    assert str(caught.value) == ("AUTHGATE_ALLOW_LOOPBACK_OUTBOUND is for the local stack only "
                                 "(AUTHGATE_STAGE=local), not production")


def test_the_cache_ceiling_cannot_be_below_its_floor() -> None:
    with pytest.raises(SettingsError) as caught:
        from_env({"AUTHGATE_CLIENT_METADATA_MIN_CACHE": "600", "AUTHGATE_CLIENT_METADATA_MAX_CACHE": "300"})
    assert str(caught.value) == "AUTHGATE_CLIENT_METADATA_MAX_CACHE must be between 600 and 604800, got 300"


def test_an_empty_environment_means_the_defaults_written_once_in_settings() -> None:
    from authgate.settings import Settings

    assert from_env({}) == Settings()
