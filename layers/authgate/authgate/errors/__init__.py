"""The error model: ApiError, the published code catalogue and its `Code` type, challenges.

Nothing here knows HTTP requests or responses; authgate.http.shapes renders an ApiError in
each wire shape of the contract.
"""

from authgate.errors.codes import Code
from authgate.errors.model import ApiError, FieldError

__all__ = ["ApiError", "Code", "FieldError"]
