"""Pydantic models generated from the two OpenAPI documents (`npm run sdk:python-models`): `live` for the live
API (/openapi.json), `data` for the data API (/v1/openapi.json)."""

from . import data, live

__all__ = ["data", "live"]
