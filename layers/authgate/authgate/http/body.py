"""JSON request bodies for API routes (RFC 8259), strictly: one object, no duplicate members.

415 unless the Content-Type is application/json, a +json type (RFC 6839) or JSON:API's media
type without parameters other than profile; a charset other than UTF-8 is 415 too (RFC 8259
8.1). 400 malformed_json for bad UTF-8, bad JSON, NaN/Infinity, duplicate members (RFC 8259 4
leaves them undefined; we refuse rather than guess), nesting deeper than MAX_DEPTH, or a
top-level value that is not an object.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from authgate import strict_json
from authgate.errors.model import ApiError, FieldError
from authgate.http.negotiation import JSONAPI, check_jsonapi_media_types

if TYPE_CHECKING:
    from authgate.http.request import Request

MAX_DEPTH = 32


def _malformed(detail: str, pointer: str = "") -> ApiError:
    return ApiError("malformed_json", detail, field_errors=(FieldError(pointer, detail),))


def _depth(value: Any) -> int:
    depth, level = 0, [value]
    while level:
        depth += 1
        nxt: list[Any] = []
        for item in level:
            if isinstance(item, dict):
                nxt.extend(item.values())
            elif isinstance(item, list):
                nxt.extend(item)
        level = [v for v in nxt if isinstance(v, (dict, list))]
        if depth > MAX_DEPTH:
            break
    return depth


def check_json_content_type(request: Request) -> None:
    """415 unless the body is declared as JSON in UTF-8."""
    check_jsonapi_media_types(request)
    media = request.content_type
    raw = request.header("content-type") or ""
    is_json = media == "application/json" or media == JSONAPI or (
        media.startswith("application/") and media.endswith("+json"))
    if not is_json:
        shown = media or "none"
        raise ApiError("unsupported_media_type",
                       f"Send the body as application/json (Content-Type was {shown}).",
                       field_errors=(FieldError("", "Expected application/json.", "header", "Content-Type"),))
    for param in raw.split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            raise ApiError("unsupported_media_type", "JSON bodies must be UTF-8 (RFC 8259 8.1).",
                           field_errors=(FieldError("", "Expected charset=utf-8.", "header", "Content-Type"),))


def json_object(request: Request, *, untyped_json: bool = False) -> dict[str, Any]:
    """The request body as a JSON object, or ApiError 415 / 400 malformed_json with a pointer.

    `untyped_json`: a body sent without any Content-Type is read as JSON too (the Shared Signals
    Framework's examples send none); a declared type must still be JSON."""
    if not (untyped_json and request.header("content-type") is None):
        check_json_content_type(request)
    raw = request.body
    if raw.startswith(b"\xef\xbb\xbf"):  # RFC 8259 8.1: a parser MAY ignore a BOM
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _malformed(f"The body is not valid UTF-8 (byte {exc.start}).") from None
    if not text.strip():
        raise _malformed("The body is empty; send a JSON object.")
    try:
        value = strict_json.loads(text)
    except strict_json.DuplicateMember as exc:
        raise _malformed(f"The member {exc.name!r} appears more than once.") from None
    except json.JSONDecodeError as exc:
        raise _malformed(f"The body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}.") from None
    except ValueError:
        raise _malformed("The body is not valid JSON, or nests too deeply.") from None
    if not isinstance(value, dict):
        raise _malformed(f"The body must be a JSON object, not {type(value).__name__ if value is not None else 'null'}.")
    if _depth(value) > MAX_DEPTH:
        raise _malformed(f"The body nests deeper than {MAX_DEPTH} levels.")
    return value
