"""authgate.settings: the environment read once, defaults written once, a bad value named at cold start."""

from __future__ import annotations

import pytest

from authgate.settings import Limits, Settings, SettingsError, Tables, from_env


def test_an_empty_environment_gives_the_documented_defaults() -> None:
    settings = from_env({})
    assert settings == Settings()
    assert (settings.stage, settings.signing_alg, settings.access_token_ttl, settings.leeway) == ("local", "RS256", 900, 120)
    assert settings.tables == Tables() and settings.tables.clients == "ClientsTable"
    assert settings.limits == Limits() and (settings.limits.window, settings.limits.tenant) == (60, 3000)


def test_empty_values_mean_unset() -> None:
    assert from_env({"AUTHGATE_LEEWAY": "", "AUTHGATE_PASSWORD_GRANT": "", "AUTHGATE_STAGE": ""}) == Settings()


def test_values_are_read_and_typed() -> None:
    settings = from_env({
        "AUTHGATE_STAGE": "production", "AUTHGATE_STACK_NAME": "authgate-prod", "AUTHGATE_SIGNING_ALG": "ES256",
        "AUTHGATE_ACCESS_TOKEN_TTL": "600", "AUTHGATE_PASSWORD_GRANT": "yes", "AUTHGATE_DPOP_NONCES": "TRUE",
        "AUTHGATE_ISSUER": "https://auth.example.com/", "AUTHGATE_CLIENTS_TABLE": "prod-clients",
        "AUTHGATE_RATE_WINDOW": "120", "AWS_REGION": "eu-west-1",
    })
    assert (settings.stage, settings.stack, settings.signing_alg, settings.access_token_ttl) == (
        "production", "authgate-prod", "ES256", 600)
    assert (settings.password_grant, settings.dpop_nonces, settings.require_par) == (True, True, False)
    assert settings.issuer == "https://auth.example.com"  # no trailing slash
    assert (settings.tables.clients, settings.tables.users) == ("prod-clients", "UsersTable")
    assert (settings.limits.window, settings.aws_region) == (120, "eu-west-1")


def test_the_stack_defaults_to_the_stage() -> None:
    assert from_env({"AUTHGATE_STAGE": "staging"}).stack == "staging"


@pytest.mark.parametrize(("env", "message"), [
    ({"AUTHGATE_LEEWAY": "soon"}, "AUTHGATE_LEEWAY must be an integer, got 'soon'"),
    ({"AUTHGATE_LEEWAY": "301"}, "AUTHGATE_LEEWAY must be between 0 and 300, got 301"),
    ({"AUTHGATE_ACCESS_TOKEN_TTL": "59"}, "AUTHGATE_ACCESS_TOKEN_TTL must be between 60 and 3600, got 59"),
    ({"AUTHGATE_PASSWORD_GRANT": "maybe"}, "AUTHGATE_PASSWORD_GRANT must be true or false, got 'maybe'"),
    ({"AUTHGATE_STAGE": "prod"}, "AUTHGATE_STAGE must be one of ['local', 'production', 'staging'], got 'prod'"),
    ({"AUTHGATE_SIGNING_ALG": "HS256"}, "AUTHGATE_SIGNING_ALG must be one of ['ES256', 'RS256'], got 'HS256'"),
    ({"AUTHGATE_ISSUER": "http://auth.example.com"}, "AUTHGATE_ISSUER must be an https URL"),
    ({"AUTHGATE_STACK_NAME": "1-stack"}, "AUTHGATE_STACK_NAME must be a CloudFormation stack name"),
])
def test_a_bad_value_names_its_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError) as info:
        from_env(env)
    assert str(info.value).startswith(message)


def test_a_local_issuer_may_be_plain_http() -> None:
    assert from_env({"AUTHGATE_ISSUER": "http://127.0.0.1:3000"}).issuer == "http://127.0.0.1:3000"
    assert from_env({"AUTHGATE_ISSUER": "http://localhost:3000"}).issuer == "http://localhost:3000"


def test_a_client_quota_one_item_cannot_take_is_refused() -> None:
    # 500 writes per second per item: 30 000 per 60 s window is the most one client may have.
    assert from_env({"AUTHGATE_RATE_CLIENT": "30000"}).limits.client == 30000
    with pytest.raises(SettingsError, match="AUTHGATE_RATE_CLIENT must be at most 500 per second"):
        from_env({"AUTHGATE_RATE_CLIENT": "3000", "AUTHGATE_RATE_WINDOW": "5"})


def test_session_lifetimes_are_settings_within_bounds() -> None:
    """SessionLifetimeSeconds and SessionIdleSeconds (docs/oidc.md): 12 h and 2 h unless set; the idle timeout
    never longer than the lifetime."""
    from authgate.settings import SettingsError, from_env

    default = from_env({})
    assert (default.session_lifetime, default.session_idle) == (12 * 3600, 2 * 3600)
    chosen = from_env({"AUTHGATE_SESSION_LIFETIME": "3600", "AUTHGATE_SESSION_IDLE": "600"})
    assert (chosen.session_lifetime, chosen.session_idle) == (3600, 600)
    assert from_env({"AUTHGATE_SESSION_LIFETIME": "1800"}).session_idle == 1800
    for env, message in (
            ({"AUTHGATE_SESSION_LIFETIME": "299"}, "AUTHGATE_SESSION_LIFETIME must be between 300 and 2592000, got 299"),
            ({"AUTHGATE_SESSION_IDLE": "59"}, "AUTHGATE_SESSION_IDLE must be between 60 and 2592000, got 59"),
            ({"AUTHGATE_SESSION_LIFETIME": "3600", "AUTHGATE_SESSION_IDLE": "7200"},
             "AUTHGATE_SESSION_IDLE (7200) must not exceed AUTHGATE_SESSION_LIFETIME (3600)")):
        with pytest.raises(SettingsError) as caught:
            from_env(env)
        assert str(caught.value) == message


def test_the_demo_upstream_is_a_loopback_origin_of_the_local_stack_only() -> None:
    assert from_env({"AUTHGATE_DEMO_UPSTREAM": "http://127.0.0.1:8766"}).demo_upstream == "http://127.0.0.1:8766"
    for env, message in (
            ({"AUTHGATE_DEMO_UPSTREAM": "http://127.0.0.1:8766", "AUTHGATE_STAGE": "production",
              "AUTHGATE_ISSUER": "https://auth.example"},
             "AUTHGATE_DEMO_UPSTREAM is for the local stack only (AUTHGATE_STAGE=local), not production"),
            ({"AUTHGATE_DEMO_UPSTREAM": "https://idp.example"},
             "AUTHGATE_DEMO_UPSTREAM must be http://127.0.0.1:PORT or http://localhost:PORT, got 'https://idp.example'")):
        with pytest.raises(SettingsError) as caught:
            from_env(env)
        assert str(caught.value) == message


def test_the_console_settings_name_the_operators_tenant_and_a_max_age_within_bounds() -> None:
    assert (Settings().operators_tenant, Settings().console_max_age) == ("operators", 43200)
    settings = from_env({"AUTHGATE_OPERATORS_TENANT": "staff", "AUTHGATE_CONSOLE_MAX_AGE": "5"})
    assert (settings.operators_tenant, settings.console_max_age) == ("staff", 5)
    # The rotation function the console invokes: the local stack's by default, the template's ARN on a stage.
    arn = "arn:aws:lambda:eu-west-1:123456789012:function:authgate-prod-RotateKeysFunction-Ab1"
    assert (Settings().rotate_keys_function,
            from_env({"AUTHGATE_ROTATE_KEYS_FUNCTION": arn}).rotate_keys_function) == ("RotateKeysFunction", arn)
    for env, message in [
        ({"AUTHGATE_CONSOLE_MAX_AGE": "4"}, "AUTHGATE_CONSOLE_MAX_AGE must be between 5 and 86400, got 4"),
        ({"AUTHGATE_CONSOLE_MAX_AGE": "86401"}, "AUTHGATE_CONSOLE_MAX_AGE must be between 5 and 86400, got 86401"),
        ({"AUTHGATE_OPERATORS_TENANT": "two words"},
         "AUTHGATE_OPERATORS_TENANT must be a tenant id (letters, digits, '.', '_', '-'), got 'two words'"),
        ({"AUTHGATE_ROTATE_KEYS_FUNCTION": "rotate keys"},
         "AUTHGATE_ROTATE_KEYS_FUNCTION must be a Lambda function's name or ARN, got 'rotate keys'"),
    ]:
        with pytest.raises(SettingsError) as info:
            from_env(env)
        assert str(info.value) == message
