"""The cost of a second factor: a one-time code (TOTP) check and a passkey assertion's verification.

A TOTP check is `UserFactorStore.verify_totp` through the account's throttle, warm, on in-process
moto: its DynamoDB calls by operation and its CPU per check (median), and the code match alone
(`users.totp.matching_step`, three HMAC-SHA1 candidates). A passkey assertion is
`users.passkey_ceremonies.verify_authentication` (py_webauthn, ES256) of an assertion a software
authenticator signed (tests/webauthn_authenticator.py), CPU per verification; and the DynamoDB
calls of a whole username-less passkey sign-in's storage (the challenge spent, the passkey read,
its counter written). Goal (issue 28): a second factor adds at most two DynamoDB calls and 5 ms of
CPU to a sign-in. Run: `python -m bench second_factors`.
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

        def check() -> None:
            clock.advance(totp.STEP_SECONDS)  # a new step each time: a step is accepted once
            assert store.verify_totp("demo", "bob", pyotp.TOTP(RFC_6238_KEY).at(int(clock()))).ok

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


def lines(m: dict[str, Any]) -> list[str]:
    t, p = m["totp_check"], m["passkey_assertion"]
    ops = ", ".join(f"{k} x{v}" for k, v in t["dynamodb_operations"].items())
    passkey_ops = ", ".join(f"{k} x{v}" for k, v in p["sign_in_dynamodb_operations"].items())
    return [(f"TOTP check (stores.user_factors.verify_totp, warm, moto): {t['dynamodb_calls']} DynamoDB calls ({ops}), "
            f"CPU median {t['cpu_ms']:.2f} ms per check, moto's emulation of the two writes included; the check's own "
            f"work (key, unseal, match) {t['own_cpu_us']:.0f} us, the code match alone {t['code_match_us']:.0f} us"),
            (f"Passkey assertion verification (py_webauthn, ES256): CPU median {p['verify_cpu_ms']:.2f} ms; a "
            f"username-less passkey sign-in's storage: {p['sign_in_dynamodb_calls']} DynamoDB calls ({passkey_ops})")]


def main() -> int:
    for line in lines(measure()):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
