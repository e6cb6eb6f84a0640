"""Fast JSON responses (orjson), with ETag / 304 for precomputed payloads."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import Request, Response

from attention_talk.web.store import Payload


class JSON(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, option=orjson.OPT_SERIALIZE_NUMPY)


def cached_json(request: Request, payload: Payload, max_age: int) -> Response:
    """Send ``payload``, or 304 when the client already holds this exact version."""
    headers = {"ETag": payload.etag, "Cache-Control": f"public, max-age={max_age}, must-revalidate"}
    match = request.headers.get("if-none-match", "")
    if payload.etag in {tag.strip() for tag in match.split(",")} or match.strip() == "*":
        return Response(status_code=304, headers=headers)
    return Response(payload.body, media_type="application/json", headers=headers)
