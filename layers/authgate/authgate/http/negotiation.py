"""Which error shape a caller gets (docs/error-responses.md), and the JSON:API 1.1 media-type rules (415, 406)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from authgate.errors.model import ApiError

if TYPE_CHECKING:
    from authgate.http.request import Request

Shape = Literal["problem", "jsonapi", "legacy-a", "legacy-b"]
PROBLEM = "application/problem+json"
JSONAPI = "application/vnd.api+json"
_JSONAPI_ALLOWED_PARAMS = frozenset({"profile"})
_MAX_ACCEPT_RANGES = 64  # a longer Accept is junk; parsing stops there


@dataclass(frozen=True)
class MediaRange:
    type: str
    subtype: str
    params: dict[str, str] = field(default_factory=dict)
    q: float = 1.0

    @property
    def full(self) -> str:
        return f"{self.type}/{self.subtype}"

    def matches(self, media_type: str) -> bool:
        main, _, sub = media_type.partition("/")
        return (self.type in ("*", main)) and (self.subtype in ("*", sub))

    @property
    def specificity(self) -> int:
        return (self.type != "*") + (self.subtype != "*") + bool(self.params)


def _split_params(text: str) -> tuple[str, dict[str, str]]:
    parts = _split_outside_quotes(text, ";")
    params: dict[str, str] = {}
    for raw in parts[1:]:
        name, sep, value = raw.partition("=")
        if not sep:
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        params[name.strip().lower()] = value
    return parts[0].strip().lower(), params


def _split_outside_quotes(text: str, sep: str) -> list[str]:
    if '"' not in text:  # the usual header: nothing quoted, a plain split is the same
        return text.split(sep)
    out: list[str] = []
    current: list[str] = []
    quoted = escaped = False
    for ch in text:
        if escaped:
            escaped = False
        elif ch == "\\" and quoted:
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch == sep and not quoted:
            out.append("".join(current))
            current = []
            continue
        current.append(ch)
    out.append("".join(current))
    return out


def parse_accept(header: str | None) -> list[MediaRange]:
    """RFC 9110 12.5.1 Accept, q-values included (q=0: not acceptable); malformed ranges skipped."""
    if not header:
        return []
    ranges = []
    for item in _split_outside_quotes(header, ",")[:_MAX_ACCEPT_RANGES]:
        media, params = _split_params(item)
        main, slash, sub = media.partition("/")
        if not slash or not main or not sub:
            continue
        q = 1.0
        if "q" in params:
            try:
                q = min(max(float(params.pop("q")), 0.0), 1.0)
            except ValueError:
                continue
        ranges.append(MediaRange(main, sub, params, q))
    return ranges


def quality(ranges: list[MediaRange], media_type: str) -> float:
    """The q of the most specific range matching `media_type`; 1.0 when there is no Accept."""
    if not ranges:
        return 1.0
    matching = [r for r in ranges if r.matches(media_type)]
    if not matching:
        return 0.0
    return max(matching, key=lambda r: r.specificity).q


def preferred(request: Request, offers: list[str]) -> str | None:
    """The offer the Accept header likes best (ties: the earlier offer), or None if none is acceptable."""
    ranges = parse_accept(request.header("accept"))
    best, best_q = None, 0.0
    for offer in offers:
        q = quality(ranges, offer)
        if q > best_q:
            best, best_q = offer, q
    return best


def _explicit_q(ranges: list[MediaRange], media_type: str, *, jsonapi: bool = False) -> float:
    """The q of ranges naming exactly `media_type` (no wildcard); JSON:API ranges must be usable."""
    qs = [r.q for r in ranges if r.full == media_type and (not jsonapi or _usable_jsonapi(r.params))]
    return max(qs, default=0.0)


def _usable_jsonapi(params: dict[str, str]) -> bool:
    return set(params) <= _JSONAPI_ALLOWED_PARAMS


def error_shape(request: Request | None) -> Shape:
    """The shape an API error is rendered in for this request."""
    if request is None:
        return "problem"
    ranges = parse_accept(request.header("accept"))
    problem_q = _explicit_q(ranges, PROBLEM)
    jsonapi_q = _explicit_q(ranges, JSONAPI, jsonapi=True)
    if problem_q or jsonapi_q:
        return "jsonapi" if jsonapi_q > problem_q else "problem"
    registered = request.context.error_format
    if registered == "legacy-a" or registered == "legacy-b":
        return registered
    return "problem"


def check_jsonapi_media_types(request: Request) -> None:
    """JSON:API 1.1 content negotiation: 415 for a parametrised Content-Type, 406 for such an Accept."""
    content_type = request.header("content-type")
    if content_type:
        media, params = _split_params(content_type)
        if media == JSONAPI and not _usable_jsonapi(params):
            raise ApiError("unsupported_media_type",
                           "application/vnd.api+json is accepted only without media type parameters "
                           "other than profile (JSON:API 1.1).")
    ranges = parse_accept(request.header("accept"))
    instances = [r for r in ranges if r.full == JSONAPI]
    if instances and all(not _usable_jsonapi(r.params) for r in instances):
        raise ApiError("not_acceptable",
                       "Every application/vnd.api+json in Accept carries media type parameters other than "
                       "profile; send it without them (JSON:API 1.1).")
