"""The JSON response class: orjson, NumPy arrays written directly. (Precomputed payloads with
ETag / 304 and compression live in compression.py.)"""

from __future__ import annotations

from typing import Any

import orjson
from fastapi.responses import JSONResponse


class JSON(JSONResponse):
    """orjson, with NumPy arrays written directly (NaN as null)."""

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, option=orjson.OPT_SERIALIZE_NUMPY)
