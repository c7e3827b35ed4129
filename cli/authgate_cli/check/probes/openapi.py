"""Negative requests built from an OpenAPI 3 document, for any API (`--openapi URL|FILE`).

Per operation: no credentials (when its security requires some), a malformed body and a
wrong media type (when it takes a body); per path: a method it does not declare. Each answer
is judged by the same reading rules as authgate's own probes, plus the status RFC 9110 gives
for that mistake and whether the operation documents that status.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from authgate_cli.check.expectations import Expect
from authgate_cli.check.openapi_document import deref
from authgate_cli.check.probes.base import RequestProbe, Send

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
# Tried in this order for the wrong-method probe: least likely to change anything if a server
# wrongly accepts it (no body is sent with it either).
WRONG_METHODS = ("PATCH", "PUT", "DELETE", "POST")
_PARAM = re.compile(r"\{([^{}]+)\}")
NEGATIVE_RULES = ("negative-request-refused", "expected-status", "status-documented")


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    doc: dict[str, Any]
    document: dict[str, Any]
    path_item: dict[str, Any]

    @property
    def label(self) -> str:
        return f"{self.method.upper()} {self.path}"

    def parameters(self) -> list[dict[str, Any]]:
        seen: dict[tuple[str, str], dict[str, Any]] = {}
        for raw in [*(self.path_item.get("parameters") or []), *(self.doc.get("parameters") or [])]:
            param = deref(self.document, raw)
            if isinstance(param, dict) and "name" in param:
                seen[(str(param.get("in")), str(param["name"]))] = param
        return list(seen.values())

    def url_path(self) -> str:
        values = {p["name"]: _sample(self.document, p) for p in self.parameters() if p.get("in") == "path"}
        path = _PARAM.sub(lambda m: quote(str(values.get(m.group(1), "authgate-check")), safe=""), self.path)
        query = {p["name"]: _sample(self.document, p) for p in self.parameters()
                 if p.get("in") == "query" and p.get("required")}
        return path + (f"?{urlencode(query)}" if query else "")

    def security(self) -> list[dict[str, Any]]:
        requirements = self.doc.get("security", self.document.get("security", []))
        return [r for r in requirements or [] if isinstance(r, dict)]

    def needs_credentials(self) -> bool:
        requirements = self.security()
        return bool(requirements) and all(requirements)  # an empty {} alternative means anonymous is fine

    def secured(self) -> bool:
        """Any security requirement, even optional: a 401 may then come before anything else is read."""
        return any(self.security())

    def _schemes(self) -> dict[str, Any]:
        return deref(self.document, (self.document.get("components") or {}).get("securitySchemes") or {})

    def scheme_types(self) -> set[str]:
        """"apiKey", "http:bearer", "oauth2", ... of every scheme its requirements name."""
        schemes = self._schemes()
        kinds: set[str] = set()
        for requirement in self.security():
            for name in requirement:
                kinds.add(_kind(deref(self.document, schemes.get(name) or {})))
        return kinds

    def credentials(self, user: tuple[tuple[str, str], ...]) -> tuple[tuple[tuple[str, str], ...], bool]:
        """The user's headers that meet one of the security requirements, and whether one was met.

        A requirement is met when each of its schemes has a header: Authorization starting with
        its http scheme (Bearer for oauth2/openIdConnect), or the apiKey's named header.
        """
        schemes = self._schemes()
        for requirement in filter(None, self.security()):  # {} (anonymous) is met by sending nothing
            chosen: list[tuple[str, str]] = []
            for name in requirement:
                match = _header_for(deref(self.document, schemes.get(name) or {}), user)
                if match is None:
                    break
                chosen.append(match)
            else:
                return tuple(chosen), True
        return (), False

    def body_media(self) -> list[str]:
        body = deref(self.document, self.doc.get("requestBody") or {})
        return [str(m).lower() for m in (body.get("content") or {})]

    def documents(self, status: int) -> bool:
        responses = self.doc.get("responses") or {}
        keys = {str(k).upper() for k in responses}
        return not keys or str(status) in keys or f"{str(status)[0]}XX" in keys or "DEFAULT" in keys


def _kind(scheme: dict[str, Any]) -> str:
    kind = str(scheme.get("type", ""))
    return f"http:{str(scheme.get('scheme', '')).lower()}" if kind == "http" else kind


def _header_for(scheme: dict[str, Any], user: tuple[tuple[str, str], ...]) -> tuple[str, str] | None:
    kind = _kind(scheme)
    if kind == "apiKey" and scheme.get("in") == "header":
        wanted = str(scheme.get("name", "")).lower()
        return next(((n, v) for n, v in user if n.lower() == wanted), None)
    prefix = {"oauth2": "bearer", "openIdConnect": "bearer"}.get(kind, kind.partition(":")[2])
    if not prefix:
        return None
    return next(((n, v) for n, v in user if n.lower() == "authorization" and v.lower().startswith(prefix + " ")),
                None)


def _sample(document: dict[str, Any], param: dict[str, Any]) -> Any:
    """A plausible value for a parameter: its example, default or first enum value, else a placeholder."""
    schema = deref(document, param.get("schema") or {})
    for source in (param, schema):
        if "example" in source:
            return source["example"]
    if "default" in schema:
        return schema["default"]
    if schema.get("enum"):
        return schema["enum"][0]
    return 1 if schema.get("type") in ("integer", "number") else "authgate-check"


def _html_allowed(document: dict[str, Any], path_item: dict[str, Any]) -> bool:
    """A path whose operations document an HTML error answer is a browser route (contract 7.4 rule 4)."""
    for method in METHODS:
        op = path_item.get(method)
        for status, response in ((op or {}).get("responses") or {}).items():
            if str(status)[:1] in ("4", "5") or str(status).lower() == "default":
                content = deref(document, response).get("content") or {}
                if any(str(m).lower().startswith("text/html") for m in content):
                    return True
    return False


def _malformed(media: str) -> tuple[str, bytes] | None:
    if media == "application/json" or media.endswith("+json"):
        return media, b'{"authgate-check": [1, 2'
    if media == "application/x-www-form-urlencoded":
        return media, b"%zz=%&=&authgate-check=%"
    return None


def probes(document: dict[str, Any], user_headers: tuple[tuple[str, str], ...] = ()) -> list[RequestProbe]:
    """The negative requests for every operation of `document`; `user_headers`: the --header credentials."""
    made: list[RequestProbe] = []
    for path, raw_item in sorted((document.get("paths") or {}).items()):
        path_item = deref(document, raw_item)
        if not isinstance(path_item, dict) or not str(path).startswith("/"):
            continue
        api = not _html_allowed(document, path_item)
        operations = [Operation(m, path, deref(document, path_item[m]), document, path_item)
                      for m in METHODS if isinstance(path_item.get(m), dict)]
        for op in operations:
            headers, met = op.credentials(user_headers)
            # Without credentials that meet its security, a 401/403 may come before the body is read.
            first = op.secured() and not met
            if op.needs_credentials():
                kinds = op.scheme_types()
                statuses = (401, 403) if any(k in ("apiKey", "mutualTLS") for k in kinds) else (401,)
                made.append(RequestProbe(
                    f"openapi.{op.label}.no-credentials", f"{op.label} without credentials: refused with "
                    f"{' or '.join(map(str, statuses))}", NEGATIVE_RULES,
                    send=Send(op.method.upper(), op.url_path(),
                              *(((("Content-Type", "application/json"),), b"{}") if op.body_media() else ())),
                    expect=Expect(status=statuses, status_severity="warning", echo=False, api=api,
                                  documented=op.documents, refusal="defect", cite="RFC 9110 15.5.2, 15.5.4")))
            media = op.body_media()
            if not media:
                continue
            malformed = next((m for m in map(_malformed, media) if m is not None), None)
            if malformed is not None:
                made.append(RequestProbe(
                    f"openapi.{op.label}.malformed-body", f"{op.label} with a malformed {malformed[0]} body: 400",
                    NEGATIVE_RULES,
                    send=Send(op.method.upper(), op.url_path(), (("Content-Type", malformed[0]), *headers),
                              malformed[1]),
                    expect=Expect(status=(400, 422), status_severity="warning", echo=False, api=api,
                                  documented=op.documents, refusal="defect", auth_first=first,
                                  cite="RFC 9110 15.5.1")))
            if not any(m in ("text/plain", "*/*", "text/*") for m in media):
                made.append(RequestProbe(
                    f"openapi.{op.label}.unsupported-media-type", f"{op.label} with a text/plain body: 415",
                    NEGATIVE_RULES,
                    send=Send(op.method.upper(), op.url_path(), (("Content-Type", "text/plain"), *headers),
                              b"authgate check: this body is not in a media type the operation takes"),
                    expect=Expect(status=(415, 400), status_severity="warning", echo=False, api=api,
                                  documented=op.documents, refusal="warning", auth_first=first,
                                  cite="RFC 9110 15.5.16")))
        declared = {op.method.upper() for op in operations}
        wrong = next((m for m in WRONG_METHODS if m not in declared), None)
        if operations and wrong:
            headers, met = operations[0].credentials(user_headers)
            made.append(RequestProbe(
                f"openapi.{path}.wrong-method", f"{wrong} {path} (not declared): 405 with Allow",
                ("allow-on-405", *NEGATIVE_RULES),
                send=Send(wrong, operations[0].url_path().split("?", 1)[0], headers),
                expect=Expect(status=(405,), status_severity="warning", refused_method=wrong, echo=False, api=api,
                              refusal="warning", cite="RFC 9110 15.5.6",
                              auth_first=any(op.secured() for op in operations) and not met)))
    return made
