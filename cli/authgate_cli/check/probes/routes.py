"""Routes: an unknown path, a wrong method, a browser's Accept on an API route, and an error the
gateway renders itself (contract 7.4 rules 1, 4; 7.5; RFC 9110 15.5.5, 15.5.6)."""

from __future__ import annotations

from authgate_cli.check.expectations import Expect
from authgate_cli.check.probes.base import RequestProbe, Send

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
READING_RULES = ("error-body-readable", "problem-media-type", "no-html-on-api-route", "code-present",
                 "request-id-present", "request-id-echoed", "trace-id-joins", "body-status-matches")


def probes(run_id: str, resource: str, *, echo: bool = True) -> tuple[RequestProbe, ...]:
    nowhere = f"/authgate-check-{run_id}/no-such-route"
    return (
        RequestProbe("route.unknown", "an unknown path: 404 in a documented shape, request id echoed",
                     (*READING_RULES, "expected-status"), send=Send("GET", nowhere),
                     expect=Expect(status=(404,), echo=echo, cite="RFC 9110 15.5.5")),
        RequestProbe("route.unknown-from-browser", "an unknown path asked for with a browser's Accept: still no HTML",
                     (*READING_RULES, "expected-status"), send=Send("GET", nowhere, (("Accept", BROWSER_ACCEPT),)),
                     expect=Expect(status=(404,), echo=echo, cite="RFC 9110 15.5.5")),
        RequestProbe("route.wrong-method", "POST on the JWKS: 405 with Allow", ("allow-on-405", "expected-status"),
                     send=Send("POST", "@jwks_uri", (("Content-Type", "application/json"),), b"{}",
                               fallback="/.well-known/jwks.json"),
                     expect=Expect(status=(405,), refused_method="POST", echo=echo, cite="RFC 9110 15.5.6")),
        # API Gateway answers this itself (GatewayResponses INVALID_API_KEY): it cannot echo the
        # client's request id, but its x-request-id must still be the body's traceId.
        RequestProbe("gateway.missing-api-key", f"{resource} without x-api-key: the gateway's own 403 invalid_api_key "
                     "as problem+json",
                     (*(r for r in READING_RULES if r != "request-id-echoed"), "expected-status", "expected-code"),
                     send=Send("GET", resource),
                     expect=Expect(status=(403,), codes=("invalid_api_key",), echo=False,
                                   cite="authgate GatewayResponses: INVALID_API_KEY")),
    )
