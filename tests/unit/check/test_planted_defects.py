"""`authgate check` fails on every planted contract defect, with the right rule, and passes the clean server.

Each case starts tests/unit/check/servers.py's authgate look-alike with exactly one defect and
runs the real command against it over HTTP; the clean server (no defect) must give exit 0 with
no finding at all, so the checker is shown both able to fail and able to pass.
"""

from __future__ import annotations

import inspect

import pytest

from tests.unit.check import servers
from tests.unit.check.checking import check, mutating_args
from tests.unit.check.servers import API_KEY, ContractServer, serving

# (planted defect, the rule the checker must report for it, needs the state-changing probes)
DEFECTS = [
    # Contract 7.4: reading any error.
    ("html-502", "no-html-on-api-route", False),
    ("gateway-html-403", "no-html-on-api-route", False),
    ("html-for-browsers", "no-html-on-api-route", False),
    ("status-mismatch", "body-status-matches", False),
    ("success-false-200", "success-false-is-failure", False),
    ("problem-as-json", "problem-media-type", False),
    ("no-content-type", "content-type-present", False),
    ("missing-code", "code-present", False),
    ("500-on-bad-bearer", "client-error-not-5xx", False),
    # Contract 7.5: the headers of an error.
    ("401-no-challenge", "challenge-on-401", False),
    ("405-no-allow", "allow-on-405", False),
    ("allow-lists-refused", "allow-on-405", False),
    ("503-no-retry-after", "retry-after-on-429-503", False),
    ("429-no-retry-after", "retry-after-on-429-503", True),
    ("retry-after-garbage", "retry-after-valid", True),
    ("trace-id-mismatch", "trace-id-joins", False),
    ("no-request-id", "request-id-present", False),
    ("request-id-not-echoed", "request-id-echoed", False),
    # Problem types.
    ("relative-problem-type", "problem-type-absolute", False),
    ("unresolvable-problem-type", "problem-type-resolves", False),
    # Discovery.
    ("issuer-mismatch", "metadata-issuer", False),
    ("relative-endpoint", "metadata-absolute-endpoints", False),
    ("metadata-redirect", "metadata-document", False),
    ("cimd-flag-not-boolean", "metadata-self-registration", False),
    ("device-grant-without-endpoint", "metadata-grants", False),
    ("advertised-grant-unserved", "metadata-grants", False),
    ("private-jwks", "jwks-public-only", False),
    ("duplicate-kid", "jwks-document", False),
    # OAuth and bearer.
    ("invalid-client-400", "oauth-client-challenge", False),
    ("oauth-status-wrong", "oauth-error-status", False),
    ("oauth-error-as-problem", "oauth-error-shape", False),
    ("bearer-wrong-error", "bearer-challenge", False),
    ("accepts-foreign-token", "bearer-rejects-bad-tokens", False),
    ("token-cacheable", "token-response", True),
    ("token-wrong-typ", "access-token-verifies", True),
    ("insufficient-scope-as-401", "insufficient-scope", True),
    ("step-up-without-scope", "step-up-challenge", True),
    ("step-up-without-metadata", "step-up-challenge", True),
    # Idempotency and limits.
    ("replay-duplicates", "idempotent-replay", True),
    ("key-reuse-accepted", "idempotency-key-reuse", True),
    ("no-ratelimit-fields", "ratelimit-fields", True),
]


# A mutating run (it creates a charge and asks for tokens) takes over a second: slow.
@pytest.mark.parametrize(("defect", "rule", "mutating"), [
    pytest.param(*d, id=d[0], marks=[pytest.mark.slow] if d[2] else []) for d in DEFECTS])
def test_a_planted_defect_is_reported_with_its_rule(capsys, defect, rule, mutating):
    with serving(ContractServer(defect)) as base:
        args = mutating_args() if mutating else ["--api-key", API_KEY]
        result = check(capsys, base, "--json", "--quiet", *args)
    assert result.code == 1, result.out
    assert rule in result.rules(), f"{defect}: expected {rule}, got {sorted(result.rules())}"
    assert result.report["exit_code"] == 1 and result.report["summary"]["defects"] >= 1


def test_every_defect_in_the_table_is_planted_by_the_server():
    """A misspelt defect would silently run the clean server: every name must be a switch in servers.py."""
    source = inspect.getsource(servers)
    for defect, _, _ in DEFECTS:
        assert f'"{defect}"' in source, defect


@pytest.mark.parametrize("mutating", [pytest.param(False, id="read-only"),
                                      pytest.param(True, id="mutating", marks=pytest.mark.slow)])
def test_the_clean_server_passes(capsys, mutating):
    with serving(ContractServer()) as base:
        result = check(capsys, base, "--json", "--quiet", *(mutating_args() if mutating else ["--api-key", API_KEY]))
    assert result.findings() == []
    assert result.code == 0
    skipped = {name for name, outcome in result.outcomes().items() if outcome == "skip"}
    assert skipped == ({"mutating.sca-challenge"} if mutating else {
        "mutating.token", "mutating.insufficient-scope", "mutating.idempotent-replay", "mutating.sca-challenge",
        "mutating.rate-limit"})
    assert set(result.outcomes().values()) <= {"pass", "skip"}


@pytest.mark.slow
@pytest.mark.parametrize("defect", [None, "step-up-auth-bad-max-age", "step-up-auth-without-params",
                                    "step-up-auth-accepted"])
def test_the_rfc_9470_challenge_is_probed_with_a_users_token(capsys, defect):
    """--user-token and --sca-amount: a password-only user's charge above the threshold must get the step-up
    challenge (RFC 9470 3) with acr_values and/or max_age in their syntax; the clean look-alike passes."""
    with serving(ContractServer(defect)) as base:
        token = servers.user_token(base)
        result = check(capsys, base, "--json", "--quiet", *mutating_args(), "--user-token", token,
                       "--sca-amount", str(servers.SCA_THRESHOLD))
    if defect is None:
        assert (result.code, result.findings(), result.outcomes()["mutating.sca-challenge"]) == (0, [], "pass")
    else:
        assert result.code == 1
        assert {f["probe"] for f in result.findings()} == {"mutating.sca-challenge"}
        assert result.rules() == {"step-up-authentication-challenge"}
    assert token.split(".")[2] not in result.out


def test_a_finding_names_the_probe_the_request_what_was_seen_and_the_rule(capsys):
    with serving(ContractServer("405-no-allow")) as base:
        result = check(capsys, base, "--json", "--quiet", "--api-key", API_KEY)
    finding = next(f for f in result.findings() if f["probe"] == "route.wrong-method")
    assert finding["rule"] == "allow-on-405" and finding["severity"] == "defect"
    assert finding["cite"] == "contract 7.5; RFC 9110 10.2.1, 15.5.6"
    assert finding["message"] == "a 405 without Allow"
    request = finding["request"]
    assert (request["method"], request["url"]) == ("POST", f"{base}/.well-known/jwks.json")
    assert request["headers"]["x-request-id"].startswith("authgate-check-") and request["body_bytes"] == 2
    seen = finding["seen"]
    assert (seen["status"], seen["content_type"]) == (405, "application/problem+json")
    assert "allow" not in seen["headers"] and seen["headers"]["x-request-id"] == request["headers"]["x-request-id"]
    assert '"code":"method_not_allowed"' in seen["body_excerpt"]
    assert result.report["rules"]["allow-on-405"]["cite"] == finding["cite"]


def test_without_an_api_key_the_bearer_probes_are_skipped_not_passed(capsys):
    with serving(ContractServer()) as base:
        result = check(capsys, base, "--json", "--quiet")
    outcomes = result.outcomes()
    assert {n for n, o in outcomes.items() if n.startswith("bearer.")} == {
        "bearer.no-credentials", "bearer.empty-token", "bearer.garbage-token", "bearer.expired-token",
        "bearer.foreign-signed-token"}
    assert all(o == "skip" for n, o in outcomes.items() if n.startswith("bearer."))
    reason = next(p["skip_reason"] for p in result.report["probes"] if p["name"] == "bearer.garbage-token")
    assert reason.startswith("needs --api-key")
    assert result.code == 0
