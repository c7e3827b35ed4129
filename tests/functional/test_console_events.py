"""The console's Events pages and a person's recent events (docs/console.md, "Events"): the audit trail's kept events,
read from the stage's audit bucket (moto) by the code `authgate events list` runs, filtered as it filters; owner and
auditor read them, support and admin get the 403 page, whatever the URL says.
"""

from __future__ import annotations

import argparse
import io
import re
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from authgate import audit
from authgate.clock import ManualClock
from tests.audit_support import AuditStage, keep
from tests.functional.authorize_support import page_of
from tests.functional.console_support import (
    BAR,
    CONSOLE_PAGE_HEADERS,
    SUPPORT_BAR,
    assert_console_error_page,
    console_event,
    grant,
    operator_session,
    page_headers,
)

Invoke = Any
BOB = "usr_demobob000000000000000"
FORM = ("Tenant any acme demo operators Person (username or user id) Client id Action any {actions} Since Until Show")
HEADINGS = "Time Action Outcome Tenant Actor Target Source address"
# The form that ends the Events page and the verification's page (console.verification).
VERIFY = ("Verify the chain Checks that no object of the trail is missing, edited or rewritten, as authgate events "
          "verify does. Since (empty: the whole chain) Earlier keys to trust (--trust-key) one KMS key ARN a line, an "
          "earlier MAC key of this stack; empty: the stack's own key only Verify")


def four(stage: AuditStage, clock: ManualClock) -> None:
    """Two tokens, a failed client authentication, bob disabled by olivia, a second apart."""
    for event in (
            ("token.issued", "demo", audit.client("demo-web"), audit.user(BOB, username="bob"), "success", None,
             {"client_id": "demo-web"}),
            ("client.authentication_failed", "demo", audit.client("svc"), audit.client("svc"), "failure",
             "wrong_secret", None),
            ("token.issued", "acme", audit.client("acme-svc"), audit.client("acme-svc"), "success", None, None),
            ("user.disabled", "demo", audit.operator("olivia", "console:usr_demoolivia000000000000"),
             audit.user(BOB, username="bob"), "success", None, {"via": "console", "roles": "owner"})):
        keep(stage, event)
        clock.advance(1)


def shown(result: dict[str, Any]) -> str:
    assert result["statusCode"] == 200, result["body"][:600]
    assert page_headers(result) == CONSOLE_PAGE_HEADERS
    return page_of(result).text()


def events_page(invoke: Invoke, cookie: str, **query: str) -> dict[str, Any]:
    return invoke("console", console_event("GET", "/console/events", urlencode(query), cookie=cookie))


def actions() -> str:
    from authgate.audit.catalogue import catalogue

    return " ".join(catalogue())


def rows_of(text: str) -> str:
    """The table's rows of an events page's text."""
    return text.partition(HEADINGS + " ")[2]


def cli(**filters: str) -> list[str]:
    """`authgate events list --since 7d` with `filters`: the actions it prints, newest first."""
    from authgate_cli.admin.events import list_events

    out = io.StringIO()
    args = argparse.Namespace(**{"tenant": None, "user": None, "client": None, "action": None, "since": "7d",
                                 "until": None, "limit": 1000, "json": False, **filters})
    assert list_events(args, out) == 0
    return [line.split()[1] for line in out.getvalue().splitlines()[1:]][::-1]


def test_an_auditor_reads_the_events_newest_first_and_filters_them_as_the_command_does(
        demo: Any, invoke: Invoke, audit_stage: AuditStage, clock: ManualClock) -> None:
    four(audit_stage, clock)
    grant("audrey", "auditor")
    cookie = operator_session("audrey", "usr_audrey")
    result = events_page(invoke, cookie)
    assert shown(result) == (
        f"{BAR.format(who='audrey (auditor)')} Events {FORM.format(actions=actions())} Events, newest first "
        f"{HEADINGS} "
        "2025-06-15T15:06:43.000Z user.disabled success demo operator:olivia user:usr_demobob000000000000000 (bob) 203.0.113.10 "
        "2025-06-15T15:06:42.000Z token.issued success acme client:acme-svc client:acme-svc 203.0.113.10 "
        "2025-06-15T15:06:41.000Z client.authentication_failed failure (wrong_secret) demo client:svc client:svc 203.0.113.10 "
        "2025-06-15T15:06:40.000Z token.issued success demo client:demo-web user:usr_demobob000000000000000 (bob) 203.0.113.10 "
        f"{VERIFY}")
    assert 'aria-current="page">Events</a>' in result["body"]
    for filters, expected in (
            ({"tenant": "acme"}, ["token.issued"]),
            ({"user": "bob"}, ["user.disabled", "token.issued"]),
            ({"user": BOB, "action": "user.*"}, ["user.disabled"]),
            ({"client": "demo-web"}, ["token.issued"]),
            ({"action": "client.authentication_failed"}, ["client.authentication_failed"]),
            ({"until": "2025-06-15T15:06:41Z"}, ["client.authentication_failed", "token.issued"])):
        text = rows_of(shown(events_page(invoke, cookie, **filters)))
        assert re.findall(r"Z (\S+) ", text) == expected == cli(**filters), filters
    assert shown(events_page(invoke, cookie, user="alice")).endswith(f" Show No event matches. {VERIFY}")
    assert shown(events_page(invoke, cookie, since="2025-06-16")).endswith(f" Show No event matches. {VERIFY}")


def test_each_event_has_its_own_page_with_its_details(
        demo: Any, invoke: Invoke, audit_stage: AuditStage, clock: ManualClock) -> None:
    four(audit_stage, clock)
    cookie = operator_session()
    listed = events_page(invoke, cookie, action="user.disabled")
    (href,) = [a for a in page_of(listed).body.split('"') if "/console/event?" in a]
    event_id = parse_qs(urlsplit(href.replace("&amp;", "&")).query)["id"][0]
    result = invoke("console", console_event("GET", "/console/event", f"id={event_id}", cookie=cookie))
    assert shown(result) == (
        f"{BAR.format(who='olivia (owner)')} user.disabled at 2025-06-15T15:06:43.000Z "
        "Event Time 2025-06-15T15:06:43.000Z Action user.disabled Outcome success Tenant demo "
        "Actor operator:olivia (console:usr_demoolivia000000000000) Target user:usr_demobob000000000000000 (bob) "
        f"Source address 203.0.113.10 User agent Mozilla/5.0 Request id request-of-the-event Event id {event_id} "
        "Details roles owner username bob via console Events of user.disabled")
    unknown = event_id[:-4] + "0000"
    assert_console_error_page(
        invoke("console", console_event("GET", "/console/event", f"id={unknown}", cookie=cookie)), "not_found",
        f"The audit trail keeps no event {unknown}.", 404)
    assert_console_error_page(
        invoke("console", console_event("GET", "/console/event", "id=1", cookie=cookie)), "invalid_request",
        "Name the event with id, the event's UUID.", 400)


def test_events_come_a_page_at_a_time_and_the_next_page_goes_on_where_this_one_stopped(
        demo: Any, invoke: Invoke, audit_stage: AuditStage, clock: ManualClock) -> None:
    keep(audit_stage, *[("token.issued", "demo", audit.client("svc"), audit.client("svc"), "success", None, {"n": n})
                        for n in range(55)])
    cookie = operator_session()
    first = events_page(invoke, cookie, tenant="demo")
    assert len(re.findall(r"token\.issued success", rows_of(shown(first)))) == 50
    (more,) = [a for a in page_of(first).body.split('"') if "before=" in a]
    query = urlsplit(more.replace("&amp;", "&")).query
    last = re.findall(r"/console/event\?id=([0-9a-f-]+)", page_of(first).body)[-1]
    assert parse_qs(query) == {"tenant": ["demo"], "since": ["2025-06-14T15:06:40.000Z"],
                               "until": ["2025-06-15T15:06:41Z"], "before": [last]}
    keep(audit_stage, ("token.issued", "demo", audit.client("svc"), audit.client("svc"), "success", None, {"n": 55}))
    second = shown(invoke("console", console_event("GET", "/console/events", query, cookie=cookie)))
    assert "Events, newest first (continued)" in second and "Older events" not in second
    assert len(re.findall(r"token\.issued success", rows_of(second))) == 5


@pytest.mark.parametrize(("query", "detail"), [
    ({"since": "soon"}, ("--since 'soon' is neither an ISO 8601 time in UTC (2026-01-31T12:00:00Z, 2026-01-31) "
                         "nor an age (90s, 15m, 2h, 7d).")),
    ({"until": "2026-13-01"}, ("--until '2026-13-01' is neither an ISO 8601 time in UTC (2026-01-31T12:00:00Z, "
                               "2026-01-31) nor an age (90s, 15m, 2h, 7d).")),
    ({"user": "a\x01b"}, "The user parameter is too long or holds control characters."),
])
def test_a_filter_the_command_refuses_is_the_400_page_in_its_words(demo: Any, invoke: Invoke, query: dict[str, str],
                                                                  detail: str) -> None:
    assert_console_error_page(events_page(invoke, operator_session(), **query), "invalid_request", detail, 400)


def test_support_and_admin_get_the_403_page_for_events_and_verify_and_it_is_recorded(
        demo: Any, invoke: Invoke, audit_events: Any) -> None:
    grant("sam", "support", "demo")
    grant("adam", "admin")
    for who, cookie in (("support (demo)", operator_session("sam", "usr_sam")),
                        ("admin", operator_session("adam", "usr_adam"))):
        for path, query in (("/console/events", ""), ("/console/events", "tenant=demo&user=bob"),
                            ("/console/event", "id=01977420-dc7b-7b31-8987-0679acf9e48f"),
                            ("/console/events/verify", "since=7d")):
            result = invoke("console", console_event("GET", path, query, cookie=cookie))
            where = " in tenant demo" if "tenant=demo" in query else ""
            assert_console_error_page(result, "operator_forbidden",
                                      f"Your roles ({who}) do not allow this{where}.", 403)
    refused = [(e["actor"]["id"], e["tenant"], e["details"]) for e in audit_events()]
    assert refused == [(name, tenant, {"console_action": "events.view", "roles": roles})
                       for name, roles in (("sam", "support (demo)"), ("adam", "admin"))
                       for tenant in ("", "demo", "", "")]


def test_a_persons_page_shows_their_recent_events_to_support_in_its_tenants(
        demo: Any, invoke: Invoke, audit_stage: AuditStage, clock: ManualClock) -> None:
    four(audit_stage, clock)
    keep(audit_stage, ("signin.failed", "demo", audit.user("unknown"), audit.user("unknown", username="bob"),
                       "failure", "invalid", {"method": "password"}),
         ("signin.failed", "acme", audit.user("unknown"), audit.user("unknown", username="bob"), "failure", "invalid",
          {"method": "password"}))
    grant("sam", "support", "demo")
    text = shown(invoke("console", console_event("GET", "/console/person", "tenant=demo&username=bob",
                                                 cookie=operator_session("sam", "usr_sam"))))
    assert text.startswith(SUPPORT_BAR.format(who="sam (support (demo))"))
    assert text.endswith(
        "Recent events 3 newest events of the last 24 hours, newest first "
        f"{HEADINGS} "
        "2025-06-15T15:06:44.000Z signin.failed failure (invalid) demo user:unknown user:unknown (bob) 203.0.113.10 "
        "2025-06-15T15:06:43.000Z user.disabled success demo operator:olivia user:usr_demobob000000000000000 (bob) 203.0.113.10 "
        "2025-06-15T15:06:40.000Z token.issued success demo client:demo-web user:usr_demobob000000000000000 (bob) 203.0.113.10")
    person = invoke("console", console_event("GET", "/console/person", "tenant=demo&username=bob",
                                             cookie=operator_session()))
    assert shown(person).endswith("203.0.113.10 Every event of bob")
    assert len(re.findall(r"/console/event\?id=", person["body"])) == 3
    assert "/console/events?tenant=demo&amp;user=usr_demobob000000000000000" in person["body"]
    clock.advance(86_401)  # a day after the newest
    assert shown(invoke("console", console_event("GET", "/console/person", "tenant=demo&username=bob",
                                                 cookie=operator_session()))).endswith(
        "Recent events No event of the last 24 hours names bob. Every event of bob")


def verify_page(invoke: Invoke, cookie: str, **query: str) -> dict[str, Any]:
    return invoke("console", console_event("GET", "/console/events/verify", urlencode(query), cookie=cookie))


def cli_verify(since: str | None = None, *trusted: str) -> tuple[int, list[str]]:
    """`authgate events verify [--since S] [--trust-key K ...]`: its exit status and the lines it prints."""
    from authgate_cli.admin.events import verify_events

    out = io.StringIO()
    status = verify_events(argparse.Namespace(since=since, json=False, trust_key=list(trusted) or None), out)
    return status, out.getvalue().splitlines()


def test_the_owner_and_an_auditor_verify_the_chain_and_read_what_the_command_prints(
        demo: Any, invoke: Invoke, audit_stage: AuditStage, clock: ManualClock, audit_events: Any) -> None:
    four(audit_stage, clock)
    grant("audrey", "auditor")
    before = len(audit_events())
    for who, cookie in (("olivia (owner)", operator_session()), ("audrey (auditor)", operator_session("audrey",
                                                                                                       "usr_audrey"))):
        for since, verdict in ((None, "INTACT: 4 object(s), sequence 1 to 4, 4 event(s)"),
                               ("2025-06-15", "INTACT: 4 object(s), sequence 1 to 4, 4 event(s)"),
                               ("2025-06-16", "INTACT: 0 object(s), no object, 0 event(s)")):
            result = verify_page(invoke, cookie, **({"since": since} if since is not None else {}))
            assert shown(result) == (f"{BAR.format(who=who)} Verify the audit trail {verdict} "
                                     f"{VERIFY} Back to the events")
            assert cli_verify(since) == (0, [verdict])
            assert f'<p role="status">{verdict}</p>' in result["body"]
            assert f'value="{since or ""}"' in result["body"]  # the form, to verify again
            assert 'aria-current="page">Events</a>' in result["body"]
    assert len(audit_events()) == before  # verifying changes nothing: no event, as the command records none


def test_an_object_edited_rewritten_or_missing_is_named_as_the_command_names_it(
        demo: Any, invoke: Invoke, audit_stage: AuditStage, clock: ManualClock) -> None:
    from tests import aws_state

    four(audit_stage, clock)
    s3 = aws_state.client("s3")
    names = sorted((item["Key"] for item in s3.list_objects_v2(Bucket=audit_stage.bucket)["Contents"]), reverse=True)
    second, third, fourth = names[1:]  # sequences 2, 3 and 4 (names count down)
    body = s3.get_object(Bucket=audit_stage.bucket, Key=second)["Body"].read()
    s3.put_object(Bucket=audit_stage.bucket, Key=second, Body=body.replace(b"wrong_secret", b"right_secret"),
                  ChecksumAlgorithm="SHA256")
    s3.delete_object(Bucket=audit_stage.bucket, Key=third)  # a delete marker: the object is no longer listed
    findings = [f"rewritten: {second}: the bucket holds 2 versions of it",
                f"edited: {second}: its events are not the events it sealed",
                f"missing: {fourth}: sequence 3 before it is not there"]
    verdict = "NOT INTACT: 3 finding(s): 3 object(s), sequence 1 to 4, 2 event(s)"
    assert cli_verify() == (1, [*findings, verdict])
    result = verify_page(invoke, operator_session())
    assert shown(result) == (f"{BAR.format(who='olivia (owner)')} Verify the audit trail {verdict} Findings "
                             + " ".join(findings) + f" {VERIFY} Back to the events")
    assert [re.sub(r"<[^>]+>", "", item) for item in re.findall(r"<li>.*?</li>", result["body"])
            if "events/date=" in item] == findings


def test_a_seal_that_does_not_match_is_named_as_the_command_names_it(
        demo: Any, invoke: Invoke, audit_stage: AuditStage, clock: ManualClock) -> None:
    """An object sealed again with another key's MAC: its header verified with the key it names (kms:VerifyMac)."""
    import json

    from tests import aws_state

    four(audit_stage, clock)
    s3 = aws_state.client("s3")
    first = max(item["Key"] for item in s3.list_objects_v2(Bucket=audit_stage.bucket)["Contents"])  # sequence 1
    header, _, rest = s3.get_object(Bucket=audit_stage.bucket, Key=first)["Body"].read().partition(b"\n")
    forged = {**json.loads(header), "mac": "AAAA" + json.loads(header)["mac"][4:]}
    s3.put_object(Bucket=audit_stage.bucket, Key=first, Body=json.dumps(forged).encode() + b"\n" + rest,
                  ChecksumAlgorithm="SHA256")
    status, lines = cli_verify("2025-06-15")
    assert (status, lines[:2]) == (1, [f"rewritten: {first}: the bucket holds 2 versions of it",
                                       f"edited: {first}: its seal does not match its header (MAC)"])
    text = shown(verify_page(invoke, operator_session(), since="2025-06-15"))
    assert text == (f"{BAR.format(who='olivia (owner)')} Verify the audit trail {lines[-1]} Findings "
                    + " ".join(lines[:-1]) + f" {VERIFY} Back to the events")


def appended(stage: AuditStage, signer: Any) -> str:
    """The chain's next object (sequence 5, after `four`), linked to its head and sealed by `signer`: its name."""
    from authgate.audit_trail.chain import digest, name_of, seal
    from tests import aws_state

    s3 = aws_state.client("s3")
    head = min(item["Key"] for item in s3.list_objects_v2(Bucket=stage.bucket)["Contents"])  # sequence 4
    enabled = {"id": "01977420-dc7b-7b31-8987-0679acf9e48f", "time": "2025-06-15T15:06:44.000Z", "tenant": "demo",
               "actor": {"type": "operator", "id": "olivia"}, "action": "user.enabled",
               "target": {"type": "user", "id": BOB}, "outcome": "success", "source_ip": "", "user_agent": "",
               "request_id": "forged", "details": {}}
    name = name_of("2025-06-15", 5)
    s3.put_object(Bucket=stage.bucket, Key=name, ChecksumAlgorithm="SHA256", Body=seal(
        5, digest(s3.get_object(Bucket=stage.bucket, Key=head)["Body"].read()), [enabled],
        created="2025-06-15T15:06:44.000Z", source=None, signer=signer))
    return name


def test_an_object_sealed_by_another_kms_key_is_foreign_to_the_page_and_the_command(
        demo: Any, invoke: Invoke, audit_stage: AuditStage, clock: ManualClock) -> None:
    """Someone who can write to the bucket appends the chain's next object, linked to its head and sealed with a KMS
    HMAC key of their own (GenerateMac): a seal valid for the key its header names, but not this stack's key."""
    from authgate.audit_trail.mac import KmsMac
    from tests import aws_state

    four(audit_stage, clock)
    forger = KmsMac(aws_state.client("kms").create_key(KeySpec="HMAC_256",
                                                       KeyUsage="GENERATE_VERIFY_MAC")["KeyMetadata"]["Arn"])
    forged = appended(audit_stage, forger)
    finding = f"foreign: {forged}: sealed by a key that is not this stack's: {forger.key_id}"
    verdict = "NOT INTACT: 1 finding(s): 5 object(s), sequence 1 to 5, 5 event(s)"
    assert cli_verify() == (1, [finding, verdict])
    result = verify_page(invoke, operator_session())
    assert shown(result) == (f"{BAR.format(who='olivia (owner)')} Verify the audit trail {verdict} Findings {finding} "
                             f"{VERIFY} Back to the events")
    assert f'<p role="status">{verdict}</p>' in result["body"]
    # Only an operator's explicit word trusts another key (an earlier key of the stack), never the object's.
    assert cli_verify(None, forger.key_id) == (0, ["INTACT: 5 object(s), sequence 1 to 5, 5 event(s)"])


def test_an_earlier_key_of_the_stack_named_in_the_form_is_trusted_as_the_command_trusts_it(
        demo: Any, invoke: Invoke, audit_stage: AuditStage, clock: ManualClock) -> None:
    """The stack's MAC key was replaced (a template change; the earlier one is retained, its policy still granting
    the console's role VerifyMac: ConsoleVerifiesSeals): the objects it sealed are foreign until the auditor names
    it, on the page as after --trust-key."""
    from authgate.audit_trail.mac import KmsMac
    from tests.audit_support import earlier_mac_key

    four(audit_stage, clock)
    earlier = KmsMac(earlier_mac_key())
    appended(audit_stage, earlier)
    other = "arn:aws:kms:us-east-1:123456789012:key/0000-never-called"
    cookie = operator_session()
    assert "NOT INTACT: 1 finding(s)" in shown(verify_page(invoke, cookie))
    intact = "INTACT: 5 object(s), sequence 1 to 5, 5 event(s)"
    result = verify_page(invoke, cookie, trust=f"{earlier.key_id}\r\n\r\n{other}\r\n")
    assert shown(result) == (f"{BAR.format(who='olivia (owner)')} Verify the audit trail {intact} "
                             f"{VERIFY.removesuffix(' Verify')} {earlier.key_id} {other} Verify Back to the events")
    assert f'spellcheck="false">{earlier.key_id}\n{other}</textarea>' in result["body"]  # to verify again
    assert cli_verify(None, earlier.key_id, other) == (0, [intact])


@pytest.mark.parametrize("trust", ["alias/audit", "arn:aws:kms:eu-west-1:123456789012:key/a\x07",
                                   "arn:aws:kms:eu-west-1:123456789012:key/a\narn:aws:kms:eu-west-1:1:key/b"])
def test_a_key_the_command_refuses_to_trust_is_the_400_page_in_its_words(
        demo: Any, invoke: Invoke, audit_stage: AuditStage, capsys: pytest.CaptureFixture[str], trust: str) -> None:
    from authgate_cli.main import main

    capsys.readouterr()
    argv = ["events", "verify", *(arg for key in trust.splitlines() for arg in ("--trust-key", key))]
    assert main(argv) == 2
    refused = capsys.readouterr().err.removeprefix("authgate events: ").removesuffix("\n")
    assert refused.startswith("--trust-key ")
    assert_console_error_page(verify_page(invoke, operator_session(), trust=trust), "invalid_request",
                              f"{refused}.", 400)


def test_the_earlier_keys_field_is_read_once_and_within_bounds(demo: Any, invoke: Invoke,
                                                               audit_stage: AuditStage) -> None:
    cookie = operator_session()
    key = "arn:aws:kms:eu-west-1:123456789012:key/a"
    repeated = invoke("console", console_event("GET", "/console/events/verify", urlencode(
        [("trust", key), ("trust", key)]), cookie=cookie))
    assert_console_error_page(repeated, "invalid_request", "The trust parameter is repeated.", 400)
    assert_console_error_page(verify_page(invoke, cookie, trust="\n".join([key] * 100)), "invalid_request",
                              "The trust parameter is too long.", 400)


@pytest.mark.parametrize("since", ["soon", "2026-13-01", "-1d"])
def test_a_time_the_command_refuses_is_the_400_page_in_its_words(demo: Any, invoke: Invoke, audit_stage: AuditStage,
                                                                 since: str) -> None:
    from authgate_cli.admin.arguments import InvalidInput

    with pytest.raises(InvalidInput) as refused:
        cli_verify(since)
    assert_console_error_page(verify_page(invoke, operator_session(), since=since), "invalid_request",
                              f"{refused.value}.", 400)
    assert str(refused.value) == (f"--since {since!r} is neither an ISO 8601 time in UTC (2026-01-31T12:00:00Z, "
                                  "2026-01-31) nor an age (90s, 15m, 2h, 7d)")


def test_a_stack_that_keeps_no_trail_has_none_to_verify(demo: Any, invoke: Invoke) -> None:
    assert_console_error_page(verify_page(invoke, operator_session()), "not_found",
                              "This stack keeps no audit trail to verify.", 404)
