"""Problem types resolve: every http(s) problem `type`, JSON:API links.type and OAuth error_uri
seen during the run answers 200 with documentation (RFC 9457 3.1.1; RFC 6749 5.2).

Runs last, on what the other probes collected. Redirects are followed here, explicitly and at
most three times, since a documentation URL may well move (RFC 9110 15.4).
"""

from __future__ import annotations

from urllib.parse import urljoin

from authgate_cli.check.probes.base import Context, ScenarioProbe

MAX_TYPES = 25
MAX_REDIRECTS = 3
ACCEPT = "text/html, application/json;q=0.9, */*;q=0.5"


def resolve(ctx: Context) -> None:
    if not ctx.seen_types:
        assert ctx.current is not None
        ctx.current.skip_reason = "no problem type or error_uri was seen"
        return
    for uri, probe in list(ctx.seen_types.items())[:MAX_TYPES]:
        url = uri.split("#", 1)[0]
        for _ in range(MAX_REDIRECTS + 1):
            exchange = ctx.exchange("GET", url, [("Accept", ACCEPT)])
            location = exchange.response.header("location")
            if exchange.response.status in (301, 302, 303, 307, 308) and location:
                url = urljoin(url, location)
                continue
            break
        status = exchange.response.status
        if status != 200:
            ctx.find("problem-type-resolves", f"{uri} (seen by {probe}) answers {status}, not 200 documentation",
                     exchange)
    assert ctx.current is not None
    checked = min(len(ctx.seen_types), MAX_TYPES)
    ctx.current.notes.append(f"fetched {checked} of {len(ctx.seen_types)} problem type URIs seen")


PROBE = ScenarioProbe("problem-types.resolve", "every problem type and error_uri seen answers 200",
                      ("problem-type-resolves",), steps=resolve)
