"""GET /problems/{code}: the human page documenting each problem type. STUB: issue 3 implements."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.http.response import Response


def get_problem(request: "Request") -> "Response":
    raise NotImplementedError("issue 3")
