"""Error model, code catalogue and the renderers for every wire shape of the contract."""

from authgate.errors.model import ApiError, FieldError

__all__ = ["ApiError", "FieldError"]
