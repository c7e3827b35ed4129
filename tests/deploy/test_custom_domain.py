"""The optional custom domain (DomainName, CertificateArn): the template SAM hands CloudFormation has
a regional TLS 1.2 domain with the stage mapped at its root, and the issuer becomes https://DomainName
everywhere it is named; without the parameters none of it exists, and IAM is the same either way."""

from __future__ import annotations

import re
from typing import Any

import pytest

from authgate_cli.local import template as reader
from tests.deploy.transform import World, condition, resolve, transformed

DOMAIN = "auth.example.com"
CERTIFICATE = "arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-4e5f-6789-abcd-ef0123456789"
API_ID = "a1b2c3d4e5"
STAGE_URL = f"https://{API_ID}.execute-api.us-east-1.amazonaws.com/production"
DOMAIN_RESOURCES = {"ApiDomainName", "ApiBasePathMapping"}


@pytest.fixture(scope="module")
def cfn() -> dict[str, Any]:
    return transformed()


def world(**parameters: str) -> World:
    return World(stack="authgate-production", refs={"AuthgateApi": API_ID, "AuthgateApiStage": "production",
                                                    "ApiDomainName": DOMAIN},
                 attrs={"ApiDomainName.RegionalDomainName": "d-abc123.execute-api.us-east-1.amazonaws.com",
                        "ApiDomainName.RegionalHostedZoneId": "Z1UJRXOUMOOFQ8"},
                 parameters={"Stage": "production", **parameters})


WITHOUT = world()
WITH = world(DomainName=DOMAIN, CertificateArn=CERTIFICATE)


def created(doc: dict[str, Any], where: World) -> dict[str, dict[str, Any]]:
    """The resources CloudFormation creates in `where`: those without a Condition or whose Condition holds."""
    return {name: r for name, r in doc["Resources"].items() if "Condition" not in r or condition(r["Condition"], doc, where)}


def outputs(doc: dict[str, Any], where: World) -> dict[str, Any]:
    return {name: resolve(o["Value"], doc, where) for name, o in doc["Outputs"].items()
            if "Condition" not in o or condition(o["Condition"], doc, where)}


def issuers_of_functions(doc: dict[str, Any], where: World) -> set[str]:
    return {resolve(r["Properties"]["Environment"]["Variables"]["AUTHGATE_ISSUER"], doc, where)
            for r in created(doc, where).values() if r["Type"] == "AWS::Lambda::Function"
            and "Environment" in r["Properties"]}


def problem_type_bases(doc: dict[str, Any], where: World) -> set[str]:
    """The base of every problem type URL the gateway's own responses send (the RestApi's body)."""
    (api,) = (r for r in doc["Resources"].values() if r["Type"] == "AWS::ApiGateway::RestApi")
    responses = api["Properties"]["Body"]["x-amazon-apigateway-gateway-responses"]
    bodies = [resolve(t, doc, where) for r in responses.values() for t in r["responseTemplates"].values()]
    assert len(bodies) == len(responses) >= 20
    return {re.search(r'"type":"(.*?)/problems/', body).group(1) for body in bodies}  # type: ignore[union-attr]


def test_without_a_domain_there_is_none_and_the_issuer_is_the_stage_url(cfn: dict[str, Any]) -> None:
    assert not DOMAIN_RESOURCES & set(created(cfn, WITHOUT))
    shown = outputs(cfn, WITHOUT)
    assert shown["Issuer"] == shown["ApiUrl"] == STAGE_URL
    assert "DomainNameTarget" not in shown and "DomainNameHostedZoneId" not in shown
    assert issuers_of_functions(cfn, WITHOUT) == {""}  # derived per request: https://{domain}/{stage}
    assert problem_type_bases(cfn, WITHOUT) == {"https://$context.domainName/$context.stage"}


def test_a_domain_is_regional_tls_1_2_with_the_stage_mapped_at_its_root(cfn: dict[str, Any]) -> None:
    resources = created(cfn, WITH)
    assert DOMAIN_RESOURCES <= set(resources)
    domain = resolve(resources["ApiDomainName"]["Properties"], cfn, WITH)
    assert domain == {"DomainName": DOMAIN, "RegionalCertificateArn": CERTIFICATE,
                      "EndpointConfiguration": {"Types": ["REGIONAL"]}, "SecurityPolicy": "TLS_1_2",
                      "Tags": [{"Key": "authgate-stack", "Value": "authgate-production"},
                               {"Key": "authgate-stage", "Value": "production"}]}
    mapping = resources["ApiBasePathMapping"]["Properties"]
    # No BasePath: the stage is the domain's root, so the issuer has no path (RFC 8414 3).
    assert mapping == {"DomainName": {"Ref": "ApiDomainName"}, "RestApiId": {"Ref": "AuthgateApi"},
                       "Stage": {"Ref": "AuthgateApiStage"}}
    assert cfn["Resources"]["AuthgateApiStage"]["Type"] == "AWS::ApiGateway::Stage"
    shown = outputs(cfn, WITH)
    assert (shown["DomainNameTarget"], shown["DomainNameHostedZoneId"]) == (
        "d-abc123.execute-api.us-east-1.amazonaws.com", "Z1UJRXOUMOOFQ8")


def test_the_domain_is_the_issuer_everywhere_it_is_named(cfn: dict[str, Any]) -> None:
    assert outputs(cfn, WITH)["Issuer"] == f"https://{DOMAIN}"
    assert outputs(cfn, WITH)["ApiUrl"] == STAGE_URL  # the stage URL still answers
    assert issuers_of_functions(cfn, WITH) == {f"https://{DOMAIN}"}
    assert problem_type_bases(cfn, WITH) == {f"https://{DOMAIN}"}
    # An explicit IssuerUrl still wins (say, a CDN in front of the domain).
    explicit = world(DomainName=DOMAIN, CertificateArn=CERTIFICATE, IssuerUrl="https://login.example.com")
    assert outputs(cfn, explicit)["Issuer"] == "https://login.example.com"
    assert issuers_of_functions(cfn, explicit) == problem_type_bases(cfn, explicit) == {"https://login.example.com"}


def test_the_admin_commands_read_the_domain_issuer_from_the_stack() -> None:
    from authgate_cli.admin.target import environment_from

    tables = {f"{name}Name": name for name in reader.resources("AWS::DynamoDB::Table")}
    env = environment_from({**tables, "Issuer": f"https://{DOMAIN}"}, {"Stage": "production"})
    assert env["AUTHGATE_ISSUER"] == f"https://{DOMAIN}"


def test_a_domain_without_a_certificate_is_refused_before_anything_is_created(cfn: dict[str, Any]) -> None:
    (rule,) = cfn["Rules"].values()

    def holds(where: World) -> bool:
        return not resolve(rule["RuleCondition"], cfn, where) or all(
            resolve(a["Assert"], cfn, where) for a in rule["Assertions"])

    assert holds(WITHOUT) and holds(WITH)
    assert not holds(world(DomainName=DOMAIN))


@pytest.mark.parametrize(("name", "value", "accepted"), [
    ("DomainName", "", True), ("DomainName", DOMAIN, True), ("DomainName", "api.auth-1.example.co.uk", True),
    ("DomainName", "https://auth.example.com", False), ("DomainName", "auth.example.com/", False),
    ("DomainName", "Auth.Example.com", False), ("DomainName", "localhost", False),
    ("CertificateArn", "", True), ("CertificateArn", CERTIFICATE, True),
    ("CertificateArn", "arn:aws:iam::123456789012:server-certificate/x", False),
])
def test_the_parameters_take_a_host_name_and_an_acm_certificate(name: str, value: str, accepted: bool) -> None:
    pattern = reader.load()["Parameters"][name]["AllowedPattern"]
    assert bool(re.fullmatch(pattern, value)) is accepted


def test_iam_is_the_same_with_and_without_a_domain(cfn: dict[str, Any]) -> None:
    """The domain and its mapping are API Gateway's: no role gains or loses a permission."""
    def policies(where: World) -> dict[str, Any]:
        return {name: resolve(r["Properties"], cfn, where) for name, r in created(cfn, where).items()
                if r["Type"] in ("AWS::IAM::Role", "AWS::IAM::Policy", "AWS::Lambda::Permission")}

    assert policies(WITH) == policies(WITHOUT)
