"""The cost of a second factor: a one-time code (TOTP) check and a passkey assertion's verification.

A TOTP check is `FactorAttempts.verify_code` through the second factor's throttle, warm, on in-process
moto: its DynamoDB calls by operation and its CPU per check (median), and the code match alone
(`users.totp.matching_step`, three HMAC-SHA1 candidates). A passkey assertion is
`users.passkey_ceremonies.verify_authentication` (py_webauthn, ES256) of an assertion a software
authenticator signed (tests/webauthn_authenticator.py), CPU per verification; and the DynamoDB
calls of a whole username-less passkey sign-in's storage (the challenge spent, the passkey read,
its counter written). Goal (issue 28): a second factor adds at most two DynamoDB calls and 5 ms of
CPU to a sign-in. `step` measures it through the authorize handler (interaction.second_factor):
a step-up of bob's fresh password session asked for acr mfa (the GET that shows the step and the POST
of his TOTP code that raises the session and issues the code) against the same request's silent
re-authentication at password (a code at once), and prints the difference against the goal; and, the
issue's own comparison, what the step adds to a password sign-in: bob's password POST for the plain request
(a code at once) against his password POST for the request asking for acr mfa (the step's page) plus his
code's POST (scrypt runs in both, and cancels out of the difference). And the one-POST sign-in (the form of a
request that needs mfa has an optional code field): bob's password POST for the plain request against his password
and code POST for a request asking acr mfa, DynamoDB calls by operation and CPU. scrypt (about 300 ms) runs once in
each and its run-to-run noise swamps 5 ms, so the CPU figure leaves it out: `hashlib.scrypt` (which
users.passwords calls) is wrapped for the run and the CPU spent inside it (time.process_time) is subtracted from
each request's, so the difference resolves milliseconds.
The step's CPU is also measured as the house measures CPU (bench/per_request.py, docs/performance.md): each of its
requests (the silent re-authentication, the step's page, the code's POST) runs once against moto with its AWS answers
recorded (bench/recording.py), then again and again with those answers replayed from a botocore Stubber, on a stopped
clock, so the figure is authgate's own work without moto's emulation of the calls, which Lambda does not pay.
Run: `python -m bench second_factors`.
"""

from __future__ import annotations

import secrets
import statistics
import time
from collections.abc import Callable
from typing import Any

RUNS = 30
RFC_6238_KEY = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"


def _cpu_ms(fn: Callable[[], object], runs: int) -> float:
    fn()  # warm: imports, first key derivation
    samples = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        samples.append((time.process_time() - start) * 1e3)
    return statistics.median(samples)


def measure(runs: int = RUNS) -> dict[str, Any]:
    import pyotp

    from authgate.clock import ManualClock, using
    from authgate.stores.factor_attempts import FactorAttempts
    from authgate.stores.passkeys import PasskeyStore
    from authgate.stores.user_factors import UserFactorStore
    from authgate.stores.webauthn_challenges import WebAuthnChallengeStore
    from authgate.users import passkey_ceremonies as ceremonies
    from authgate.users import totp
    from authgate.users.sealed_secrets import factor_key, seal, unseal
    from bench.dynamodb_calls import counting
    from bench.moto_stack import moto_stack
    from tests.webauthn_authenticator import SoftAuthenticator

    clock = ManualClock(1_750_000_000.0)
    with moto_stack(AUTHGATE_SESSION_SECRET="bench-session-secret-0123456789abcdef"), using(clock):
        store = UserFactorStore()
        store.put_hash("demo", "bob", "not-a-password-hash")
        store.set_totp("demo", "bob", RFC_6238_KEY)
        attempts = FactorAttempts()

        def check() -> None:
            clock.advance(totp.STEP_SECONDS)  # a new step each time: a step is accepted once
            assert attempts.verify_code("demo", "bob", pyotp.TOTP(RFC_6238_KEY).at(int(clock()))).ok

        check()
        with counting() as calls:
            check()
        totp_cpu = _cpu_ms(check, runs)
        match_us = _cpu_ms(lambda: totp.matching_step(RFC_6238_KEY, "287082", 59), runs) * 1e3
        sealed = seal(factor_key(b"bench-session-secret-0123456789abcdef"), RFC_6238_KEY, "demo", "bob")
        # What the check itself computes beside its two writes: the key, the secret unsealed, the match.
        own_us = _cpu_ms(lambda: totp.matching_step(unseal(factor_key(b"bench-session-secret-0123456789abcdef"),
                                                           sealed, "demo", "bob"), "287082", 59), runs) * 1e3

        device = SoftAuthenticator()
        challenge = secrets.token_bytes(32)
        passkey = ceremonies.verify_registration(credential=device.register(challenge), challenge=challenge,
                                                 rp_id="localhost", origin="http://localhost:3000", tenant_id="demo",
                                                 username="bob", name="bench", now=int(clock()))
        PasskeyStore().add(passkey)

        def assertion_check() -> None:
            c = secrets.token_bytes(32)
            ceremonies.verify_authentication(credential=device.assertion(c), challenge=c, rp_id="localhost",
                                             origin="http://localhost:3000", passkey=passkey._replace(sign_count=0))

        passkey_cpu = _cpu_ms(assertion_check, runs)
        challenges, passkeys = WebAuthnChallengeStore(), PasskeyStore()
        issued = challenges.issue("authenticate", "sid", "demo")
        assertion = device.assertion(issued)
        with counting() as passkey_calls:
            spent = challenges.consume(ceremonies.challenge_of(assertion), "authenticate", "sid")
            held = passkeys.get(ceremonies.credential_id_of(assertion))
            assert held is not None
            asserted = ceremonies.verify_authentication(credential=assertion, challenge=spent.challenge,
                                                        rp_id="localhost", origin="http://localhost:3000",
                                                        passkey=held)
            passkeys.used(held, asserted.sign_count, asserted.backed_up, int(clock()))
    return {"totp_check": {"cpu_ms": totp_cpu, "dynamodb_calls": calls.total,
                           "dynamodb_operations": dict(calls.by_operation()), "code_match_us": match_us,
                           "own_cpu_us": own_us},
            "passkey_assertion": {"verify_cpu_ms": passkey_cpu, "sign_in_dynamodb_calls": passkey_calls.total,
                                  "sign_in_dynamodb_operations": dict(passkey_calls.by_operation())},
            "runs": runs}


GOAL_CALLS, GOAL_CPU_MS = 2, 5.0
BINDING = "benchbindingbenchbindingbenchbindingbenchbin"


def step(rounds: int = RUNS) -> dict[str, Any]:
    """DynamoDB calls and CPU of a TOTP sign-in step at the authorization endpoint (see the module)."""
    import hashlib
    import html
    import re
    from collections import Counter
    from urllib.parse import urlencode

    import pyotp

    from authgate.aws import dynamodb
    from authgate.clock import ManualClock, using
    from authgate.stores.consents import ConsentStore
    from authgate.stores.sessions import SessionStore
    from authgate.stores.users import UserStore
    from authgate.tokens.rotation import ensure_keys
    from authgate.users import totp
    from authgate_cli.local.events import HttpRequest, build_event
    from authgate_cli.local.functions import load_handler
    from authgate_cli.local.seed import load_seed
    from bench.moto_stack import moto_stack
    from bench.token_endpoint import CHALLENGE

    clock = ManualClock(1_750_000_000.0)
    bob = "usr_demobob000000000000000"
    query = urlencode({"response_type": "code", "client_id": "demo-web", "redirect_uri": "http://127.0.0.1:8765/callback",
                       "scope": "openid charges:read", "nonce": "n", "state": "s", "code_challenge": CHALLENGE,
                       "code_challenge_method": "S256"})
    hidden = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')
    # A host name for an issuer: WebAuthn refuses IP addresses as relying-party ids (the passkey sign-in below).
    with moto_stack(AUTHGATE_ISSUER="http://localhost:3000"), using(clock):
        load_seed()
        ensure_keys()
        authorize = load_handler("authorize")
        calls: Counter[str] = Counter()
        dynamodb().meta.events.register("before-call.dynamodb", lambda model, **_: calls.update([model.name]))
        ConsentStore().remember("demo", bob, "demo-web", ("openid", "charges:read"), None)
        bob_record = UserStore().get("demo", "bob")
        assert bob_record is not None
        generation = bob_record.session_generation

        def request(method: str, raw_query: str, secret: str, body: bytes = b"") -> dict[str, Any]:
            headers = [("Host", "127.0.0.1:3000"), ("Cookie", f"authgate_binding={BINDING}; authgate_session={secret}")]
            if body:
                headers.append(("Content-Type", "application/x-www-form-urlencoded"))
            return build_event(HttpRequest(method, "/oauth/authorize", raw_query, headers, body),
                               resource="/oauth/authorize", path_params=None)

        def timed(event: dict[str, Any], status: int) -> tuple[dict[str, Any], float, Counter[str]]:
            calls.clear()
            hashing[0] = 0.0
            start = time.process_time()
            result = authorize(event, None)
            cpu = (time.process_time() - start) * 1e3
            assert result["statusCode"] == status, result["body"][:300]
            return result, cpu, Counter(calls)

        # The CPU spent inside scrypt (hashlib.scrypt, which users.passwords calls), per request: about 300 ms whose
        # noise swamps milliseconds, so the sign-in POSTs' figures are also given without it.
        hashing = [0.0]
        real_scrypt = hashlib.scrypt

        def scrypt(*args: Any, **kwargs: Any) -> bytes:
            start = time.process_time()
            try:
                return real_scrypt(*args, **kwargs)
            finally:
                hashing[0] += (time.process_time() - start) * 1e3

        hashlib.scrypt = scrypt
        samples: dict[str, list[float]] = {"silent": [], "page": [], "code": []}
        ops: dict[str, Counter[str]] = {}
        for _ in range(rounds + 1):  # the first round warms the modules (pyotp, the page)
            clock.advance(totp.STEP_SECONDS)  # a new TOTP step each round: a step is accepted once
            secret, _session = SessionStore().create(tenant_id="demo", user_id=bob, username="bob", acr="password",
                                                     amr=("pwd",), generation=generation)
            _, silent_cpu, ops["silent"] = timed(request("GET", query, secret), 302)
            page, page_cpu, ops["page"] = timed(request("GET", query + "&acr_values=mfa", secret), 200)
            fields = {name: html.unescape(value) for name, value in hidden.findall(page["body"])}
            body = urlencode({**fields, "code": pyotp.TOTP(RFC_6238_KEY).at(int(clock()))}).encode()
            _, code_cpu, ops["code"] = timed(request("POST", "", secret, body), 303)
            for name, cpu in (("silent", silent_cpu), ("page", page_cpu), ("code", code_cpu)):
                samples[name].append(cpu)

        # The same three requests with their AWS answers replayed from a Stubber (the house's CPU, bench/per_request.py):
        # each recorded once against moto on fresh state, then replayed `rounds` times on the stopped clock.
        clock.advance(totp.STEP_SECONDS)  # a TOTP step the rounds above did not use
        samples.update(_stubbed_step(authorize, request, query, hidden, rounds, bob, generation))

        # Issue 28's comparison: what the step adds to a password sign-in. A fresh browser posts bob's password to
        # the sign-in form of the plain request (a code at once) and of the request asking for acr mfa (the step's
        # page instead), then the code. scrypt runs in both password POSTs, and cancels out of the difference.
        samples.update({"password": [], "password_step": [], "password_code": [], "password_net": []})
        cookie_secret = re.compile(r"authgate_session=([^;]+)")
        for _ in range(rounds + 1):
            clock.advance(totp.STEP_SECONDS)
            for name, extra in (("password", ""), ("password_step", "&acr_values=mfa")):
                form = authorize(request("GET", query + "&prompt=login" + extra, "none"), None)
                fields = {k: html.unescape(v) for k, v in hidden.findall(form["body"])}
                body = urlencode({**fields, "username": "bob", "password": "bob-password",
                                  "decision": "approve"}).encode()
                signed, signed_cpu, ops[name] = timed(request("POST", "", "none", body), 303 if not extra else 200)
                samples[name].append(signed_cpu)
                if not extra:
                    samples["password_net"].append(signed_cpu - hashing[0])
            found_secret = cookie_secret.search(" ".join(signed["multiValueHeaders"]["Set-Cookie"]))
            assert found_secret is not None
            fields = {k: html.unescape(v) for k, v in hidden.findall(signed["body"])}
            body = urlencode({**fields, "code": pyotp.TOTP(RFC_6238_KEY).at(int(clock()))}).encode()
            _, code_cpu, ops["password_code"] = timed(request("POST", "", found_secret.group(1), body), 303)
            samples["password_code"].append(code_cpu)

        # The password and the code in one POST (the form of a request that needs mfa has the code field): against the
        # plain password POST above, scrypt's CPU taken out of both (one hash each).
        samples.update({"one_post": [], "one_post_net": []})
        for _ in range(rounds + 1):
            clock.advance(totp.STEP_SECONDS)
            form = authorize(request("GET", query + "&prompt=login&acr_values=mfa", "none"), None)
            fields = {k: html.unescape(v) for k, v in hidden.findall(form["body"])}
            body = urlencode({**fields, "username": "bob", "password": "bob-password", "decision": "approve",
                              "code": pyotp.TOTP(RFC_6238_KEY).at(int(clock()))}).encode()
            _, one_cpu, ops["one_post"] = timed(request("POST", "", "none", body), 303)
            samples["one_post"].append(one_cpu)
            samples["one_post_net"].append(one_cpu - hashing[0])
        hashlib.scrypt = real_scrypt

        # A username-less passkey sign-in: "Approve with a passkey" (the ceremony's page), then the assertion.
        import json

        from authgate import base64url
        from authgate.stores.passkeys import PasskeyStore
        from authgate.users import passkey_ceremonies
        from tests.webauthn_authenticator import SoftAuthenticator

        device = SoftAuthenticator(origin="http://localhost:3000")
        registration = secrets.token_bytes(32)
        PasskeyStore().add(passkey_ceremonies.verify_registration(
            credential=device.register(registration), challenge=registration, rp_id="localhost",
            origin="http://localhost:3000", tenant_id="demo", username="alice", name="bench", now=int(clock())))
        options = re.compile(r'<script type="application/json" id="passkey-options">(.*?)</script>')
        samples.update({"passkey_page": [], "passkey": []})
        for _ in range(rounds + 1):
            form = authorize(request("GET", query, "none"), None)
            fields = {name: html.unescape(value) for name, value in hidden.findall(form["body"])}
            ceremony, ceremony_cpu, ops["passkey_page"] = timed(
                request("POST", "", "none", urlencode({**fields, "decision": "passkey"}).encode()), 200)
            found = options.search(ceremony["body"])
            assert found is not None
            assertion = device.assertion(base64url.decode(json.loads(found.group(1))["challenge"]))
            fields = {name: html.unescape(value) for name, value in hidden.findall(ceremony["body"])}
            body = urlencode({**fields, "credential": json.dumps(assertion)}).encode()
            _, passkey_cpu, ops["passkey"] = timed(request("POST", "", "none", body), 303)
            samples["passkey_page"].append(ceremony_cpu)
            samples["passkey"].append(passkey_cpu)
    cpu = {name: statistics.median(values[1:]) for name, values in samples.items()}
    calls_of = {name: sum(counter.values()) for name, counter in ops.items()}
    added_calls = calls_of["page"] + calls_of["code"] - calls_of["silent"]
    added_cpu = cpu["page"] + cpu["code"] - cpu["silent"]
    to_password_calls = calls_of["password_step"] + calls_of["password_code"] - calls_of["password"]
    to_password_cpu = cpu["password_step"] + cpu["password_code"] - cpu["password"]
    stubbed_cpu = cpu["stubbed_page"] + cpu["stubbed_code"] - cpu["stubbed_silent"]
    one_post_calls = calls_of["one_post"] - calls_of["password"]
    one_post_cpu = cpu["one_post_net"] - cpu["password_net"]
    return {"stubbed": {"dynamodb_calls": added_calls, "cpu_ms": stubbed_cpu,
                        "meets_goal": added_calls <= GOAL_CALLS and stubbed_cpu <= GOAL_CPU_MS},
            "one_post": {"dynamodb_calls": one_post_calls, "cpu_ms": one_post_cpu,
                         "meets_goal": one_post_calls <= GOAL_CALLS and one_post_cpu <= GOAL_CPU_MS},
            "added_to_password_sign_in": {
                "dynamodb_calls": to_password_calls, "cpu_ms": to_password_cpu,
                "meets_goal": to_password_calls <= GOAL_CALLS and to_password_cpu <= GOAL_CPU_MS},"cpu_ms": cpu, "dynamodb_calls": calls_of,
            "dynamodb_operations": {name: dict(sorted(c.items())) for name, c in ops.items()},
            "added_dynamodb_calls": added_calls, "added_cpu_ms": added_cpu,
            "goal": {"dynamodb_calls": GOAL_CALLS, "cpu_ms": GOAL_CPU_MS},
            "meets_goal": added_calls <= GOAL_CALLS and added_cpu <= GOAL_CPU_MS, "runs": rounds}


def _stubbed_step(authorize: Callable[[dict[str, Any], Any], dict[str, Any]],
                  request: Callable[..., dict[str, Any]], query: str, hidden: Any, rounds: int, bob: str,
                  generation: int) -> dict[str, list[float]]:
    """CPU samples (ms) of the step's requests with AWS answered from a recording (bench/recording.py): the silent
    re-authentication, the step's page and the code's POST, each recorded once on a fresh session of bob's."""
    import html
    from urllib.parse import urlencode

    import pyotp

    from authgate import clock
    from authgate.stores.sessions import SessionStore
    from bench.recording import Replay, recording

    def fresh() -> str:
        secret, _session = SessionStore().create(tenant_id="demo", user_id=bob, username="bob", acr="password",
                                                 amr=("pwd",), generation=generation)
        return secret

    def replayed(event: dict[str, Any], status: int) -> list[float]:
        with recording() as rec:
            recorded = authorize(event, None)
        assert recorded["statusCode"] == status, recorded["body"][:300]
        replay, cpu = Replay(), []
        for _ in range(rounds + 1):  # the first warms what the recording's run did not
            replay.queue(rec)
            replay.activate()
            try:
                start = time.process_time()
                result = authorize(event, None)
                cpu.append((time.process_time() - start) * 1e3)
                assert result["statusCode"] == status, result["body"][:300]
                replay.assert_drained()
            finally:
                replay.deactivate()
        return cpu

    silent = replayed(request("GET", query, fresh()), 302)
    secret = fresh()
    page_event = request("GET", query + "&acr_values=mfa", secret)
    page = replayed(page_event, 200)
    shown = authorize(page_event, None)  # the fields the code's POST sends, from a page moto answered
    fields = {name: html.unescape(value) for name, value in hidden.findall(shown["body"])}
    body = urlencode({**fields, "code": pyotp.TOTP(RFC_6238_KEY).at(int(clock.now()))}).encode()
    code = replayed(request("POST", "", secret, body), 303)
    return {"stubbed_silent": silent, "stubbed_page": page, "stubbed_code": code}


def step_lines(m: dict[str, Any]) -> list[str]:
    ops = {name: ", ".join(f"{k} x{v}" for k, v in o.items()) for name, o in m["dynamodb_operations"].items()}
    verdict = "meets" if m["meets_goal"] else "MISSES"
    calls, cpu = m["dynamodb_calls"], m["cpu_ms"]
    passkey = ([(f"Passkey sign-in at the authorization endpoint (warm, moto, issuer on localhost; no password, no "
                 f"scrypt): the ceremony's page {calls['passkey_page']} DynamoDB calls ({ops['passkey_page']}), CPU "
                 f"median {cpu['passkey_page']:.2f} ms; the assertion's POST {calls['passkey']} calls "
                 f"({ops['passkey']}), CPU median {cpu['passkey']:.2f} ms")] if "passkey" in calls else [])
    added = m.get("added_to_password_sign_in", {})
    password = [(f"TOTP step added to a password sign-in (issue 28's goal; warm, moto, scrypt in both): bob's password "
                 f"POST {calls['password']} DynamoDB calls ({ops['password']}), CPU median {cpu['password']:.2f} ms; "
                 f"with acr_values=mfa the password POST {calls['password_step']} calls ({ops['password_step']}), "
                 f"{cpu['password_step']:.2f} ms, then the code's POST {calls['password_code']} calls "
                 f"({ops['password_code']}), {cpu['password_code']:.2f} ms: the second factor adds "
                 f"{added['dynamodb_calls']} DynamoDB calls and {added['cpu_ms']:.2f} ms of CPU: it "
                 f"{'meets' if added['meets_goal'] else 'MISSES'} the goal (at most {m['goal']['dynamodb_calls']} "
                 f"calls and {m['goal']['cpu_ms']:.0f} ms)")] if added else []
    one = m.get("one_post")
    one_post = [(f"Password and TOTP code in one POST (issue 28's goal; warm, moto): bob's password POST for the plain "
                 f"request {calls['password']} DynamoDB calls ({ops['password']}), CPU median {cpu['password_net']:.2f} "
                 f"ms besides scrypt; his password+code POST for a request asking acr mfa {calls['one_post']} calls "
                 f"({ops['one_post']}), CPU median {cpu['one_post_net']:.2f} ms besides scrypt (scrypt measured inside "
                 f"hashlib.scrypt and taken out of both, one hash each): the second factor adds "
                 f"{one['dynamodb_calls']} DynamoDB calls and {one['cpu_ms']:.2f} ms of CPU: it "
                 f"{'meets' if one['meets_goal'] else 'MISSES'} the goal (at most {m['goal']['dynamodb_calls']} "
                 f"calls and {m['goal']['cpu_ms']:.0f} ms)")] if one else []
    stub = m.get("stubbed")
    stubbed = [(f"TOTP sign-in step, CPU with AWS answered from a Stubber (bench/recording.py, as docs/performance.md's "
                f"per-operation CPU; bob's fresh password session asked for acr mfa): the silent re-authentication "
                f"{cpu['stubbed_silent']:.2f} ms, the step's page {cpu['stubbed_page']:.2f} ms, the code's POST "
                f"{cpu['stubbed_code']:.2f} ms (medians): the second factor adds {stub['dynamodb_calls']} DynamoDB calls "
                f"and {stub['cpu_ms']:.2f} ms of CPU: it {'meets' if stub['meets_goal'] else 'MISSES'} the goal "
                f"(at most {m['goal']['dynamodb_calls']} calls and {m['goal']['cpu_ms']:.0f} ms)")] if stub else []
    return one_post + passkey + password + stubbed + [("TOTP sign-in step at the authorization endpoint (warm, moto; bob's fresh password session asked for "
             "acr mfa): the step's page "
             f"{m['dynamodb_calls']['page']} DynamoDB calls ({ops['page']}), CPU median {m['cpu_ms']['page']:.2f} ms; "
             f"the code's POST {m['dynamodb_calls']['code']} calls ({ops['code']}), CPU median "
             f"{m['cpu_ms']['code']:.2f} ms; against the same request's silent re-authentication at password "
             f"({m['dynamodb_calls']['silent']} calls, {m['cpu_ms']['silent']:.2f} ms) the second factor adds "
             f"{m['added_dynamodb_calls']} DynamoDB calls and {m['added_cpu_ms']:.2f} ms of CPU: it {verdict} the goal "
             f"(at most {m['goal']['dynamodb_calls']} calls and {m['goal']['cpu_ms']:.0f} ms)")]


def lines(m: dict[str, Any]) -> list[str]:
    t, p = m["totp_check"], m["passkey_assertion"]
    ops = ", ".join(f"{k} x{v}" for k, v in t["dynamodb_operations"].items())
    passkey_ops = ", ".join(f"{k} x{v}" for k, v in p["sign_in_dynamodb_operations"].items())
    return [(f"TOTP check (stores.factor_attempts.verify_code, warm, moto): {t['dynamodb_calls']} DynamoDB calls ({ops}), "
            f"CPU median {t['cpu_ms']:.2f} ms per check, moto's emulation of the two writes included; the check's own "
            f"work (key, unseal, match) {t['own_cpu_us']:.0f} us, the code match alone {t['code_match_us']:.0f} us"),
            (f"Passkey assertion verification (py_webauthn, ES256): CPU median {p['verify_cpu_ms']:.2f} ms; a "
            f"username-less passkey sign-in's storage: {p['sign_in_dynamodb_calls']} DynamoDB calls ({passkey_ops})")]


def main() -> int:
    for line in [*lines(measure()), *step_lines(step())]:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
