"""`authgate check --openapi` on an API that is not authgate: the pets server and its OpenAPI document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.unit.check.checking import check
from tests.unit.check.servers import PETS_TOKEN, DocumentServer, PetsServer, serving

DOCUMENT = Path(__file__).with_name("pets-openapi.yaml")
CREDENTIALS = ("--header", f"Authorization: Bearer {PETS_TOKEN}")
EXPECTED_PROBES = [
    "route.unknown", "route.unknown-from-browser",
    "openapi./health.wrong-method",
    "openapi.GET /pets.no-credentials", "openapi.POST /pets.no-credentials", "openapi.POST /pets.malformed-body",
    "openapi.POST /pets.unsupported-media-type", "openapi./pets.wrong-method",
    "openapi.GET /pets/{petId}.no-credentials", "openapi./pets/{petId}.wrong-method",
    "problem-types.resolve",
]


def test_negative_requests_per_operation_on_a_clean_api(capsys):
    with serving(PetsServer()) as base:
        result = check(capsys, base, "--openapi", str(DOCUMENT), "--json", "--quiet", *CREDENTIALS)
    assert [p["name"] for p in result.report["probes"]] == EXPECTED_PROBES
    assert result.findings() == [] and result.code == 0
    assert set(result.outcomes().values()) == {"pass"}
    assert result.report["mode"]["openapi"] == str(DOCUMENT)
    assert result.report["mode"]["user_headers"] == ["authorization"]


@pytest.mark.parametrize(("defect", "rule", "probe"), [
    ("405-no-allow", "allow-on-405", "openapi./pets.wrong-method"),
    ("html-415", "no-html-on-api-route", "openapi.POST /pets.unsupported-media-type"),
    ("accepts-malformed", "negative-request-refused", "openapi.POST /pets.malformed-body"),
    ("no-auth", "negative-request-refused", "openapi.GET /pets.no-credentials"),
    ("401-no-challenge", "challenge-on-401", "openapi.GET /pets.no-credentials"),
    ("status-mismatch", "body-status-matches", "openapi.POST /pets.malformed-body"),
])
def test_a_defect_of_another_api_is_reported(capsys, defect, rule, probe):
    with serving(PetsServer(defect)) as base:
        result = check(capsys, base, "--openapi", str(DOCUMENT), "--json", "--quiet", *CREDENTIALS)
    assert result.code == 1
    assert (probe, rule) in {(f["probe"], f["rule"]) for f in result.findings("defect")}, result.findings()


def test_without_credentials_body_probes_are_skipped_not_passed(capsys):
    with serving(PetsServer()) as base:
        result = check(capsys, base, "--openapi", str(DOCUMENT), "--json", "--quiet")
    outcomes = result.outcomes()
    for name in ("openapi.POST /pets.malformed-body", "openapi.POST /pets.unsupported-media-type"):
        assert outcomes[name] == "skip", name
    reason = next(p["skip_reason"] for p in result.report["probes"] if p["name"] == "openapi.POST /pets.malformed-body")
    assert reason == ("refused with 401 for missing credentials before the request was judged; "
                      "pass them with --header")
    # The pets API judges the method before the credentials: its 405s are answers, not skips.
    assert outcomes["openapi./pets.wrong-method"] == "pass" and result.code == 0


def test_an_undocumented_status_is_a_warning_only(capsys, tmp_path):
    document = yaml.safe_load(DOCUMENT.read_text())
    document["paths"]["/pets"]["get"]["responses"] = {"200": {"description": "The pets"}}
    path = tmp_path / "pets.json"
    path.write_text(json.dumps(document))
    with serving(PetsServer()) as base:
        result = check(capsys, base, "--openapi", str(path), "--json", "--quiet", *CREDENTIALS)
    [warning] = result.findings("warning")
    assert (warning["probe"], warning["rule"]) == ("openapi.GET /pets.no-credentials", "status-documented")
    assert warning["message"] == "401 is not among the operation's documented responses"
    assert result.code == 0 and result.outcomes()["openapi.GET /pets.no-credentials"] == "warn"


def test_the_document_can_be_fetched_from_a_url(capsys):
    document = DocumentServer(DOCUMENT.read_bytes(), "application/yaml")
    with serving(PetsServer()) as base, serving(document) as doc_base:
        result = check(capsys, base, "--openapi", f"{doc_base}/openapi.yaml", "--json", "--quiet", *CREDENTIALS)
    assert result.code == 0 and len(result.report["probes"]) == len(EXPECTED_PROBES)


@pytest.mark.parametrize(("content", "message"), [
    (None, "cannot read the OpenAPI document {path}: No such file or directory"),
    ("swagger: '2.0'\npaths: {}\n", "{path} is not an OpenAPI 3 document (openapi: 2.0)"),
    ("openapi: 3.0.0\npaths: [\n", "{path} is neither JSON nor YAML (line 3)"),
    ("openapi: 3.0.0\n", "{path} has no paths object"),
    ('{"openapi": "3.1.0", "paths": {"/a": {"$ref": "#/nowhere"}}}', "$ref '#/nowhere' points at nothing"),
])
def test_an_unusable_document_is_one_line_and_exit_2(capsys, tmp_path, content, message):
    path = tmp_path / "doc.yaml"
    if content is not None:
        path.write_text(content)
    with serving(PetsServer()) as base:
        result = check(capsys, base, "--openapi", str(path))
    assert result.code == 2 and result.out == ""
    assert result.err == f"authgate check: {message.format(path=path)}\n"
