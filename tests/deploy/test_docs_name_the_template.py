"""Every stack output, template parameter, tag and log group the docs name exists in template.yaml.

Names are found where the docs use them as such: `describe-stacks` queries (OutputKey=='X'),
"the `X` output", `X=value` overrides and the parameter table of deploy.md, `authgate-*=` tags,
and log-group names. A doc that names what the template does not have is a reader's dead end.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from authgate_cli.local import template as reader

REPO = Path(__file__).resolve().parents[2]
DOCS = sorted([*REPO.joinpath("docs").glob("*.md"), REPO / "README.md"])

OUTPUT = [re.compile(r"OutputKey==\\?'(\w+)\\?'"), re.compile(r"`(\w+)` outputs?\b"),
          re.compile(r"\boutputs? `(\w+)`")]
PARAMETER = [re.compile(r"`([A-Z][a-z][A-Za-z0-9]+)=[^`\s]*`"), re.compile(r"\bparameters? `([A-Z][A-Za-z0-9]+)`"),
             re.compile(r"`([A-Z][A-Za-z0-9]+)` parameter")]
# `Name=value` the docs quote that is an AWS API request member, not a template parameter.
API_MEMBERS = {"MessageType", "ReturnValuesOnConditionCheckFailure"}
# `Name="value"` the docs quote that is a SAML 2.0 XML attribute (SAML metadata, AuthnRequest), not a template parameter.
SAML_ATTRIBUTES = {"AuthnRequestsSigned", "WantAssertionsSigned", "WantAuthnRequestsSigned", "ForceAuthn"}
TAG = re.compile(r"`?(authgate-[a-z]+)=")
LOG_GROUP = re.compile(r"`(/aws/[^`\s]+|API-Gateway-Execution-Logs[^`\s]*)`")


def named(patterns: list[re.Pattern[str]]) -> set[tuple[str, str]]:
    return {(path.name, m.group(1)) for path in DOCS for p in patterns for m in p.finditer(path.read_text())}


def tag_keys(value: Any) -> set[str]:
    """Tag keys the template sets or conditions on (Tags lists and maps, aws:TagKeys, RequestTag/X)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "Tags":
                found |= ({t["Key"] for t in item if isinstance(t, dict) and "Key" in t} if isinstance(item, list)
                          else set(item) if isinstance(item, dict) else set())
            elif key == "aws:TagKeys":
                found |= set(item)
            elif key.startswith(("aws:RequestTag/", "aws:ResourceTag/")):
                found.add(key.split("/", 1)[1])
            found |= tag_keys(item)
    elif isinstance(value, list):
        for item in value:
            found |= tag_keys(item)
    return found


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return reader.load()


def test_every_output_the_docs_name_is_an_output(doc: dict[str, Any]) -> None:
    mentioned = named(OUTPUT)
    assert ("deploy.md", "Issuer") in mentioned  # the finder finds the docs' queries
    assert {(f, name) for f, name in mentioned if name not in doc["Outputs"]} == set()


def test_every_parameter_the_docs_name_is_a_parameter(doc: dict[str, Any]) -> None:
    mentioned = {(f, name) for f, name in named(PARAMETER) if name not in API_MEMBERS | SAML_ATTRIBUTES}
    # deploy.md's parameter table: the first cell of each row names one or more parameters.
    for line in (REPO / "docs" / "deploy.md").read_text().splitlines():
        if line.startswith("| `"):
            mentioned |= {("deploy.md", name) for name in re.findall(r"`([A-Z][A-Za-z0-9]+)`", line.split("|")[1])}
    assert {("deploy.md", "SigningBackend"), ("deploy.md", "LogLevel")} <= mentioned
    assert {(f, name) for f, name in mentioned if name not in doc["Parameters"]} == set()


def test_every_tag_the_docs_name_is_one_the_stack_sets(doc: dict[str, Any]) -> None:
    mentioned = {(path.name, m.group(1)) for path in DOCS for m in TAG.finditer(path.read_text())}
    assert ("tokens-and-keys.md", "authgate-stack") in mentioned
    kms_tags = set(re.findall(r'"TagKey": "(authgate-[a-z]+)"',
                              (REPO / "layers/authgate/authgate/tokens/kms_backend.py").read_text()))
    assert {(f, name) for f, name in mentioned if name not in tag_keys(doc) | kms_tags} == set()


def test_every_log_group_the_docs_name_is_one_the_stack_has(doc: dict[str, Any]) -> None:
    names = {str(r["Properties"].get("LogGroupName")) for r in doc["Resources"].values()
             if r["Type"] == "AWS::Logs::LogGroup"}
    shapes = {"API-Gateway-Execution-Logs_{rest-api-id}/{stage}"
              if "API-Gateway-Execution-Logs" in n else n for n in names}
    mentioned = {(path.name, m.group(1)) for path in DOCS for m in LOG_GROUP.finditer(path.read_text())}
    # The functions' groups are unnamed (CloudFormation names them): docs point at the outputs.
    assert {(f, name) for f, name in mentioned if name not in shapes} == set()
    for name, resource in doc["Resources"].items():
        if resource["Type"] == "AWS::Logs::LogGroup":
            assert name in doc["Outputs"], f"{name}: operators find the group through an output"
